// Reading the service's Prometheus text (GET /metrics) as a scraper does.

/** Every sample of an exposition: `name{label="value",...}` (labels as sent, in order) -> value. */
export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** The sum of every sample of `name` whose labels include all of `labels` (0 when none). */
export function sampleSum(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [key, value] of samples) {
    const brace = key.indexOf("{");
    if ((brace === -1 ? key : key.slice(0, brace)) !== name) continue;
    const sent = brace === -1 ? "" : key.slice(brace);
    if (
      Object.entries(labels).every(
        ([label, wanted]) => sent.includes(`{${label}="${wanted}"`) || sent.includes(`,${label}="${wanted}"`),
      )
    )
      sum += value;
  }
  return sum;
}
