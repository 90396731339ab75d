/**
 * `compute`, remembered per key. For keys from a small set (firms, their secrets) whose value is
 * costly to derive on every request; emptied when it outgrows `max`, so odd keys cannot grow it.
 */
export function memoized<V>(compute: (key: string) => V, max: number): (key: string) => V {
  const values = new Map<string, V>();
  return (key) => {
    let value = values.get(key);
    if (value === undefined) {
      value = compute(key);
      if (values.size >= max) values.clear();
      values.set(key, value);
    }
    return value;
  };
}
