/** "1h 5m", "45s", "1.5s": short durations for messages and UI summaries. */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${Math.round(ms / 100) / 10}s`;
  const totalSeconds = Math.round(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', s ? `${s}s` : ''].filter(Boolean).join(' ') || '0s';
}
