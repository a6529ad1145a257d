/**
 * The media type of a file from its first bytes, not its name: a `.png` that is really something
 * else is caught before it reaches the model.
 */
/** Second bytes of an MP3 frame header without ID3 tag (MPEG-1/2 layer III); never a UTF-16 BOM. */
const mpegFrameSyncs = new Set([0xfb, 0xfa, 0xf3, 0xf2, 0xe3, 0xe2])

export function sniffMediaType(bytes: Uint8Array): string | undefined {
  const starts = (...signature: number[]) => signature.every((byte, index) => bytes[index] === byte)
  const ascii = (offset: number, text: string) =>
    [...text].every((character, index) => bytes[offset + index] === character.charCodeAt(0))
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png'
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg'
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return 'image/gif'
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp'
  if (ascii(0, '%PDF-')) return 'application/pdf'
  if (starts(0x42, 0x4d)) return 'image/bmp'
  // Recordings: voice messages and the sound of videos, for the transcriber.
  if (ascii(0, 'RIFF') && ascii(8, 'WAVE')) return 'audio/wav'
  if (ascii(0, 'OggS')) return 'audio/ogg'
  if (ascii(0, 'fLaC')) return 'audio/flac'
  if (ascii(0, 'ID3') || (bytes[0] === 0xff && mpegFrameSyncs.has(bytes[1] ?? 0))) return 'audio/mpeg'
  if (ascii(4, 'ftypM4A')) return 'audio/mp4'
  if (ascii(4, 'ftyp')) return 'video/mp4'
  if (starts(0x1a, 0x45, 0xdf, 0xa3)) return 'video/webm'
  return undefined
}
