/**
 * A set of line numbers in one bit each, so the rows of a 1,000,000-row file cost 125 KB to
 * remember (which lines start a row, which rows the journal has finished), not the tens of
 * megabytes of a `Set<number>` (the import's memory stays flat; docs/import.md "Memory and speed").
 *
 * @module
 */

/** Line numbers (positive integers) as bits of a byte array that grows as needed. */
export class LineSet {
  private bits = new Uint8Array(1024);
  private count = 0;

  /** How many line numbers are in the set. */
  get size(): number {
    return this.count;
  }

  has(line: number): boolean {
    return ((this.bits[line >>> 3] ?? 0) & (1 << (line & 7))) !== 0;
  }

  /** Adds `line`; false when it was already there. */
  add(line: number): boolean {
    const index = line >>> 3;
    if (index >= this.bits.length) {
      const grown = new Uint8Array(Math.max(index + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (line & 7);
    const byte = this.bits[index] ?? 0;
    if ((byte & mask) !== 0) return false;
    this.bits[index] = byte | mask;
    this.count++;
    return true;
  }
}
