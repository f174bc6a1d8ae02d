// Media-type patterns such as "image/*" against a file's measured type. Pure: the studio's file
// picker uses it in the browser as the core does when it checks a file input.
export function mediaTypeMatches(pattern: string, contentType: string): boolean {
  return pattern.endsWith("/*") ? contentType.startsWith(pattern.slice(0, -1)) : contentType === pattern;
}
