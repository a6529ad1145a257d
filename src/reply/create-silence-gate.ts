/**
 * Silence: a reply that is `[silence]` alone (whitespace around it allowed) says the character
 * chose to say nothing. The gate sits between the envelope and everything that releases text, and
 * holds the reply's text only while what came so far could still be that signal: leading
 * whitespace, a prefix of `[silence]`, or `[silence]` and trailing whitespace. The first character
 * that rules it out releases everything held at once, so a spoken reply waits at most for the
 * first few characters and a silent one never leaks a character.
 */

/** What the model writes, alone, to stay silent (in the JSON format as its `text`). */
export const silenceSignal = '[silence]'

export interface SilenceGateOptions {
  /** Receives the reply's text once it is known not to be silence (then every later piece). */
  onText(text: string): void
}

export interface SilenceGate {
  write(text: string): void
  /** The reply ended: true when it was silence (nothing was released); else the held text goes out. */
  end(): boolean
}

enum Phase {
  /** Only whitespace so far. */
  Leading,
  /** Inside the signal: `matched` characters of it read. */
  Signal,
  /** The whole signal read: only whitespace may follow. */
  Trailing,
  /** Not silence: text passes straight through. */
  Speaking,
}

/** The characters `String.prototype.trim` removes, checked one at a time. */
const whitespace = /\s/

export function createSilenceGate(options: SilenceGateOptions): SilenceGate {
  let phase = Phase.Leading
  let matched = 0
  let held = ''

  /** Whether `text` keeps the reply a possible silence; reads each character once. */
  const stillSilent = (text: string): boolean => {
    for (const character of text) {
      if (phase === Phase.Leading) {
        if (whitespace.test(character)) continue
        phase = Phase.Signal
      }
      if (phase === Phase.Signal) {
        // The signal is ASCII, so one code point is one code unit here.
        if (character !== silenceSignal[matched]) return false
        matched++
        if (matched === silenceSignal.length) phase = Phase.Trailing
        continue
      }
      if (!whitespace.test(character)) return false
    }
    return true
  }

  return {
    write(text) {
      if (phase === Phase.Speaking) {
        options.onText(text)
        return
      }
      if (stillSilent(text)) {
        held += text
        return
      }
      phase = Phase.Speaking
      const released = held + text
      held = ''
      options.onText(released)
    },
    end() {
      if (phase === Phase.Trailing) {
        held = ''
        return true
      }
      // Whitespace alone or a part of the signal: not silence, said as it was written.
      if (phase !== Phase.Speaking && held) options.onText(held)
      held = ''
      phase = Phase.Speaking
      return false
    },
  }
}
