/**
 * `INTERACT_WORD_V2`, the newer form of `INTERACT_WORD`: its `data.pb` is a base64 protobuf message
 * of which three fields are read here: 1 the uid, 2 the name, 5 the kind (1 entered, 2 followed,
 * 3 shared, 4 special follow, 5 mutual follow). A small reader of the protobuf wire format: varints,
 * length-delimited fields, and fixed 32/64-bit fields skipped; anything else is a clear error.
 */

export interface InteractWord {
  uid: number
  name: string
  msgType: number
}

const WireType = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const

export function decodeInteractWord(pb: string): InteractWord {
  const bytes = Buffer.from(pb, 'base64')
  const word: InteractWord = { uid: 0, name: '', msgType: 0 }
  let offset = 0

  const readVarint = (): number => {
    let value = 0
    let scale = 1
    for (let index = 0; index < 10; index++) {
      if (offset >= bytes.length) throw new Error('INTERACT_WORD_V2: a number runs past the end')
      const byte = bytes[offset++] as number
      value += (byte & 0x7f) * scale
      if ((byte & 0x80) === 0) return value
      scale *= 128
    }
    throw new Error('INTERACT_WORD_V2: a number longer than 10 bytes')
  }

  const take = (length: number): Buffer => {
    if (length > bytes.length - offset)
      throw new Error(`INTERACT_WORD_V2: a field of ${length} bytes where ${bytes.length - offset} remain`)
    const slice = bytes.subarray(offset, offset + length)
    offset += length
    return slice
  }

  while (offset < bytes.length) {
    const tag = readVarint()
    const field = Math.floor(tag / 8)
    const wireType = tag % 8
    if (wireType === WireType.varint) {
      const value = readVarint()
      if (field === 1) word.uid = value
      else if (field === 5) word.msgType = value
    } else if (wireType === WireType.bytes) {
      const value = take(readVarint())
      if (field === 2) word.name = value.toString('utf8')
    } else if (wireType === WireType.fixed64) take(8)
    else if (wireType === WireType.fixed32) take(4)
    else throw new Error(`INTERACT_WORD_V2: field ${field} has wire type ${wireType}, which is not read`)
  }
  return word
}
