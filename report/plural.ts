// A count with its noun, as every writer of the report words it: "1 error", "3 errors", "2 stale baseline entries".

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
