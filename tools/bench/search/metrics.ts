// Ranking-quality measures over graded relevance (0-3).

/** nDCG@k with gain 2^grade - 1. */
export function ndcg(ranked: string[], grades: Map<string, number>, k = 10): number {
  const dcg = ranked.slice(0, k).reduce((sum, id, i) => sum + (2 ** (grades.get(id) ?? 0) - 1) / Math.log2(i + 2), 0);
  const ideal = [...grades.values()]
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, grade, i) => sum + (2 ** grade - 1) / Math.log2(i + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** 1 / rank of the first listing graded at least `relevant` (0 when none is found). */
export function reciprocalRank(ranked: string[], grades: Map<string, number>, relevant = 2): number {
  const at = ranked.findIndex((id) => (grades.get(id) ?? 0) >= relevant);
  return at < 0 ? 0 : 1 / (at + 1);
}

/** Share of the listings graded at least `relevant` found in the first k. */
export function recall(ranked: string[], grades: Map<string, number>, k = 20, relevant = 2): number {
  const wanted = [...grades.entries()].filter(([, grade]) => grade >= relevant).map(([id]) => id);
  if (wanted.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return wanted.filter((id) => top.has(id)).length / wanted.length;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
