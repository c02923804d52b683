import { StringDecoder } from 'node:string_decoder';

/**
 * Collects a stream's text up to a cap: the beginning and the end are kept (where commands say what
 * they do and how they ended), the middle is replaced by a note saying how much was left out.
 */
export class BoundedOutput {
  private readonly decoder = new StringDecoder('utf8');
  private head = '';
  private tail = '';
  private omitted = 0;

  constructor(private readonly maxChars: number) {}

  push(chunk: Buffer): void {
    this.add(this.decoder.write(chunk));
  }

  text(): string {
    this.add(this.decoder.end());
    if (this.omitted === 0) return this.head + this.tail;
    return `${this.head}\n[... ${this.omitted} characters of output omitted here ...]\n${this.tail}`;
  }

  private add(text: string): void {
    if (!text) return;
    const half = Math.floor(this.maxChars / 2);
    if (this.head.length < half) {
      const taken = text.slice(0, half - this.head.length);
      this.head += taken;
      text = text.slice(taken.length);
    }
    if (!text) return;
    this.tail += text;
    if (this.tail.length > this.maxChars - half) {
      const excess = this.tail.length - (this.maxChars - half);
      this.omitted += excess;
      this.tail = this.tail.slice(excess);
    }
  }
}
