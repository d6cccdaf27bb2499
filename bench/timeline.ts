// A bounded timeline of [ms, value] points that stays evenly spaced however long the run: past
// twice its size it keeps every other point and from then on records every other offered one, so
// every point kept is the same number of offers apart. (Halving without the stride left the start
// of a long run with a point or two and its end dense: the service's memory over 5,000 runs.)
export class Timeline {
  private points: [number, number][] = [];
  private offered = 0;
  private stride = 1;

  constructor(private readonly maxPoints: number) {
    if (!Number.isInteger(maxPoints) || maxPoints < 1) throw new RangeError('a timeline keeps at least one point');
  }

  offer(ms: number, value: number): void {
    if (this.offered++ % this.stride !== 0) return;
    this.points.push([ms, value]);
    if (this.points.length > 2 * this.maxPoints) {
      this.points = this.points.filter((_, i) => i % 2 === 0);
      this.stride *= 2;
    }
  }

  /** At most maxPoints points, evenly spaced, and the last one offered and kept. */
  read(): [number, number][] {
    const every = Math.ceil(this.points.length / this.maxPoints);
    return this.points.filter((_, i) => i % every === 0 || i === this.points.length - 1);
  }
}
