/** Shorter tokens can be guessed; rate limits slow guessing, they do not make a short token safe. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Why each configured bearer token is unfit (1-based position), or nothing when all are fit: too
 * short, or the `placeholder` an example file ships (a copied example must not become a credential).
 */
export function tokenProblems(tokens: readonly string[], placeholder?: string): string[] {
  return tokens.flatMap((token, i) => {
    if (placeholder !== undefined && token === placeholder)
      return [`token ${i + 1} is the .env.example placeholder; set a random token of your own`];
    if (token.length < MIN_TOKEN_LENGTH)
      return [`token ${i + 1} is ${token.length} characters; use at least ${MIN_TOKEN_LENGTH}`];
    return [];
  });
}
