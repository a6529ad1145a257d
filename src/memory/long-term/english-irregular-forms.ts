/**
 * English words whose other forms no ending rule reaches: irregular verbs ("went" for "go",
 * "bought" for "buy") and plurals ("children" for "child"). A question usually asks in the bare
 * form ("When did Caroline go…") while the memory tells it in the past ("I went…"), so each form
 * is a variant of the others (`findTermVariants`). Forms that are also common unrelated words
 * ("left", "lay", "ground", "lives") are left out, and forms every form of which is a stopword
 * ("do", "have", "get") are not listed.
 */
import { stemEnglishWord } from './stem-english-word.js'

const groups = `go went gone | buy bought | bring brought | think thought | catch caught | teach taught
fight fought | make made | take took taken | give gave given | see saw seen | eat ate eaten
drink drank drunk | drive drove driven | ride rode ridden | write wrote written | speak spoke spoken
break broke broken | choose chose chosen | wake woke woken | steal stole stolen | freeze froze frozen
fall fell fallen | feel felt | keep kept | sleep slept | meet met | feed fed | find found | win won
run ran | begin began begun | sing sang sung | swim swam swum | come came | become became
grow grew grown | know knew known | throw threw thrown | fly flew flown | draw drew drawn
wear wore worn | hold held | stand stood | understand understood | sell sold | tell told | say said
pay paid | hear heard | build built | send sent | spend spent | lose lost | shoot shot | sit sat
forget forgot forgotten | hide hid hidden | forgive forgave forgiven | shake shook shaken | rise rose risen
blow blew blown | dig dug | hang hung | stick stuck | bleed bled | flee fled
mean meant | dream dreamt dreamed | learn learnt learned | burn burnt burned | overcome overcame
child children | person people | man men | woman women | foot feet | tooth teeth | mouse mice
wife wives | knife knives | leaf leaves | shelf shelves`

/** Stemmed form → the stemmed other forms of its word. */
const formsByTerm = new Map<string, string[]>()
for (const group of groups.split(/[|\n]/)) {
  const forms = [...new Set(group.trim().split(/\s+/).map(stemEnglishWord))]
  for (const form of forms) {
    const others = forms.filter((other) => other !== form)
    formsByTerm.set(form, [...(formsByTerm.get(form) ?? []), ...others])
  }
}

/** The other forms of a stemmed English term ("went" → "go", "gone"); empty for a regular word. */
export function findIrregularForms(term: string): readonly string[] {
  return formsByTerm.get(term) ?? []
}
