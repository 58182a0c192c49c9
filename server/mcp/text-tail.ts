/** Keeps the last `limit` characters of a stream of text (a child's stderr, shown when it fails). */
export class TextTail {
  private buffer = '';
  constructor(private readonly limit: number) {}
  append(text: string): void {
    this.buffer = (this.buffer + text).slice(-this.limit);
  }
  text(): string {
    return this.buffer;
  }
}
