/**
 * Holds a failed command's error until the wall clock is past its `deadline`. A command this side
 * gave up on (its timeout, a broken connection) may still sit in Redis' buffer and run later; its
 * script refuses itself once Redis' clock is past the deadline. Node's timers count from the event
 * loop's cached clock, which a busy or descheduled process lets lag the wall clock, so the command
 * timeout can fire before the deadline by the wall clock, and the command could then still land
 * after its caller heard that it failed. Held until the deadline has passed, it cannot.
 */
export async function waitPastDeadline(deadline: number): Promise<void> {
  for (let left = deadline - Date.now(); left >= 0; left = deadline - Date.now())
    await new Promise((resolve) => setTimeout(resolve, left + 1))
}
