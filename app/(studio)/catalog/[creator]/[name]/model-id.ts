/** The catalog ID from the route's two parts ("atelier", "gradient-poster%402" → "atelier/gradient-poster@2"). */
export function modelIdOf(creator: string, name: string): string {
  const decode = (s: string) => (s.includes("%") ? decodeURIComponent(s) : s);
  return `${decode(creator)}/${decode(name)}`;
}
