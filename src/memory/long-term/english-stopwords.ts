/**
 * Words too common to tell memories apart. Dropping them from queries keeps the OR query small and
 * fast; dropping them from the index keeps it small. Question words are here too: "when did…"
 * must not favour every snippet that says "when".
 */
export const stopwords: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just let me more
most my myself no nor not now of off on once only or other our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves yeah yes oh okay ok hey hi wow really also got get gets
im ive id ill youre youve theyre thats dont doesnt didnt cant wont isnt arent wasnt werent
的 了 是 在 和 与 及 或 也 就 都 而 着 吗 呢 吧 啊 呀 哦 嗯 这 那 这个 那个 什么 怎么 怎么样
为什么 哪 哪里 谁 我 你 他 她 它 我们 你们 他们 她们 一个 有 没有 吗 么 得 地 被 把 让 给`
    .split(/\s+/)
    .filter(Boolean),
)
