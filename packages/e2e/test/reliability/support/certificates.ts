import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A certificate and its key, as PEM file paths. */
export interface CertificateFiles {
  cert: string;
  key: string;
}

/** Certificates made with the openssl CLI in a temporary directory. */
export interface CertificateSet {
  dir: string;
  /** A certificate authority: its certificate and key. */
  authority(name: string): Promise<CertificateFiles>;
  /** A leaf certificate for 127.0.0.1 and localhost, signed by `ca` (self-signed when absent). */
  leaf(name: string, ca?: CertificateFiles): Promise<CertificateFiles>;
  remove(): Promise<void>;
}

/** Creates a {@link CertificateSet}. */
export async function createCertificateSet(): Promise<CertificateSet> {
  const dir = await mkdtemp(join(tmpdir(), "trestle-reliability-tls-"));
  const openssl = (args: string[]) => run("openssl", args, { cwd: dir });
  return {
    dir,
    async authority(name) {
      const files = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
      await openssl([
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "2",
        "-subj",
        `/CN=${name}`,
        "-keyout",
        files.key,
        "-out",
        files.cert,
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
      ]);
      return files;
    },
    async leaf(name, ca) {
      const files = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
      const ext = join(dir, `${name}.ext`);
      await writeFile(
        ext,
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n",
      );
      if (!ca) {
        await openssl([
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:P-256",
          "-nodes",
          "-days",
          "2",
          "-subj",
          `/CN=${name}`,
          "-keyout",
          files.key,
          "-out",
          files.cert,
          "-addext",
          "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ]);
        return files;
      }
      const csr = join(dir, `${name}.csr`);
      await openssl([
        "req",
        "-new",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-subj",
        `/CN=${name}`,
        "-keyout",
        files.key,
        "-out",
        csr,
      ]);
      await openssl([
        "x509",
        "-req",
        "-in",
        csr,
        "-CA",
        ca.cert,
        "-CAkey",
        ca.key,
        "-CAcreateserial",
        "-days",
        "2",
        "-out",
        files.cert,
        "-extfile",
        ext,
      ]);
      return files;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
