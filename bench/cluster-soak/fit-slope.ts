/** The least-squares slope of y over x for `[x, y]` points (0 for fewer than two distinct x). */
export function fitSlope(points: [number, number][]): number {
  const count = points.length
  if (count < 2) return 0
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / count
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / count
  let covariance = 0
  let variance = 0
  for (const [x, y] of points) {
    covariance += (x - meanX) * (y - meanY)
    variance += (x - meanX) ** 2
  }
  return variance === 0 ? 0 : covariance / variance
}
