/** A time limit that stands still while paused (a run's, while it waits for a person): `onFire` once the time is used up. */
export class PausableTimer {
  private timer: NodeJS.Timeout | null = null;
  private startedAt = 0;

  constructor(
    private remainingMs: number,
    private readonly onFire: () => void,
  ) {
    this.resume();
  }

  pause(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.remainingMs = Math.max(0, this.remainingMs - (Date.now() - this.startedAt));
  }

  resume(): void {
    if (this.timer) return;
    this.startedAt = Date.now();
    this.timer = setTimeout(this.onFire, this.remainingMs);
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
