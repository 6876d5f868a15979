import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const KEY_FILE = 'secret.key';

/**
 * Seals token secrets with keys kept in a file beside the database, not in it:
 * a copy of the database alone neither reveals a secret nor lets one be checked.
 */
export class SecretBox {
  private readonly encryptionKey: Buffer;
  private readonly hashKey: Buffer;

  constructor(material: Buffer) {
    if (material.length !== 64) throw new Error('The secret key file must hold 64 bytes.');
    this.encryptionKey = material.subarray(0, 32);
    this.hashKey = material.subarray(32, 64);
  }

  static openInFolder(dataDir: string): SecretBox {
    const file = join(dataDir, KEY_FILE);
    if (!existsSync(file)) {
      writeFileSync(file, randomBytes(64), { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
    }
    return new SecretBox(readFileSync(file));
  }

  seal(plain: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  open(sealed: Buffer): string {
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
  }

  hash(secret: string): Buffer {
    return createHmac('sha256', this.hashKey).update(secret).digest();
  }

  /** Constant-time comparison of a presented secret with a stored hash. */
  matches(secret: string, storedHash: Buffer): boolean {
    const presented = this.hash(secret);
    return presented.length === storedHash.length && timingSafeEqual(presented, storedHash);
  }
}
