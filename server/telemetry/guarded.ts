const reported = new Set<string>();

/**
 * Telemetry follows the run; it must never stop it. A listener that threw
 * would throw out of the recorder's emit, into the engine. Said once per
 * kind, not once per event.
 */
export function guarded(what: string, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    if (reported.has(what)) return;
    reported.add(what);
    process.stderr.write(`planscope: ${what} export failed and is skipping events: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
