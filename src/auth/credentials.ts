import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Secrets and tokens are 256 random bits (DECISIONS "Authentication"), stored
 * only as SHA-256 hashes. With that much entropy a slow password hash would add
 * nothing but latency; what matters is that the stored hash cannot be turned
 * back into a usable credential, and that comparisons take constant time.
 */
export function newClientId(): string {
  return `c_${randomBytes(12).toString('hex')}`;
}

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function newAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

/** SHA-256 as hex, by Node's one-shot `crypto.hash` (every request hashes its bearer token to find it in the cache). */
export function hashCredential(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time check of a presented secret against a stored hash (hex of equal length). */
export function credentialMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashCredential(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Hash compared against when the client id is unknown, so that both paths cost the same. */
export const UNKNOWN_CLIENT_HASH = hashCredential(randomBytes(32).toString('hex'));
