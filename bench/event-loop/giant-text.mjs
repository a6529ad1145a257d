// The event-loop bench's giant text: one run of Chinese with no space or punctuation (the worst case
// for word segmenters and BPE tokenizers), "violin" first so that retrieval finds it. Shared by the
// bench and its measured process, which makes its own copy rather than receive a megabyte over IPC.
export const makeGiantText = (size) =>
  `violin ${'这是一段很长的中文文本没有空格'.repeat(Math.ceil(size / 15))}`.slice(0, size)
