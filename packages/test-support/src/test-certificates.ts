import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A certificate and its key, as PEM file paths. */
export interface CertificateFiles {
  cert: string;
  key: string;
}

/** What a leaf certificate is for. */
export interface LeafOptions {
  /** The `subjectAltName` extension. Default `IP:127.0.0.1,DNS:localhost`. */
  subjectAltName?: string;
  /** The `extendedKeyUsage` extension. Default `serverAuth,clientAuth`. */
  extendedKeyUsage?: string;
  /** The subject's common name. Default the certificate's name. */
  commonName?: string;
}

/** Certificates made with the `openssl` CLI in a temporary directory, as files. */
export interface CertificateSet {
  dir: string;
  /** A certificate authority: its certificate and key. */
  authority(name: string): Promise<CertificateFiles>;
  /** A leaf certificate, signed by `ca` (self-signed when absent); for 127.0.0.1 and localhost by default. */
  leaf(name: string, ca?: CertificateFiles, options?: LeafOptions): Promise<CertificateFiles>;
  /** Removes the directory. */
  remove(): Promise<void>;
}

/** PEM texts of a certificate and its key. */
export interface PemPair {
  cert: string;
  key: string;
}

/** PEM texts of a throw-away CA, a server certificate for 127.0.0.1/localhost and a client certificate. */
export interface TestCertificates {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A server certificate from `ca` valid only for the name `capability.test` (host name checks). */
  namedServer: PemPair;
  /** Another CA: trusting only it must fail. */
  otherCa: string;
  /** A server certificate for 127.0.0.1 that the other CA signed: no client trusting `ca` accepts it. */
  untrustedServer: PemPair;
  /** A client certificate that the other CA signed: refused under mutual TLS. */
  rogueClientCert: string;
  rogueClientKey: string;
}

const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

/** Makes certificates in `dir` (EC P-256 keys, valid two days): the one engine behind both helpers below. */
function certificateMaker(dir: string) {
  let serial = 0;
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const files = (name: string): CertificateFiles => ({
    cert: join(dir, `${name}.crt`),
    key: join(dir, `${name}.key`),
  });
  /** A self-signed certificate with the given `-addext` extensions. */
  const selfSigned = (name: string, commonName: string, extensions: string[]): CertificateFiles => {
    const made = files(name);
    const added = extensions.flatMap((extension) => ["-addext", extension]);
    openssl(
      "req",
      "-x509",
      ...EC_KEY,
      "-days",
      "2",
      "-subj",
      `/CN=${commonName}`,
      "-keyout",
      made.key,
      "-out",
      made.cert,
      ...added,
    );
    return made;
  };
  return {
    authority(name: string, commonName = name): CertificateFiles {
      return selfSigned(name, commonName, [
        "basicConstraints=critical,CA:TRUE",
        "keyUsage=critical,keyCertSign,cRLSign",
      ]);
    },
    leaf(name: string, ca: CertificateFiles | undefined, options: LeafOptions = {}): CertificateFiles {
      const subjectAltName = options.subjectAltName ?? "IP:127.0.0.1,DNS:localhost";
      const commonName = options.commonName ?? name;
      if (!ca) return selfSigned(name, commonName, [`subjectAltName=${subjectAltName}`]);
      const made = files(name);
      const extensions = join(dir, `${name}.ext`);
      writeFileSync(
        extensions,
        `subjectAltName=${subjectAltName}\nextendedKeyUsage=${options.extendedKeyUsage ?? "serverAuth,clientAuth"}\nbasicConstraints=CA:FALSE\n`,
      );
      const request = join(dir, `${name}.csr`);
      openssl("req", "-new", ...EC_KEY, "-subj", `/CN=${commonName}`, "-keyout", made.key, "-out", request);
      serial++;
      openssl(
        "x509",
        "-req",
        "-in",
        request,
        "-CA",
        ca.cert,
        "-CAkey",
        ca.key,
        "-set_serial",
        String(serial),
        "-days",
        "2",
        "-out",
        made.cert,
        "-extfile",
        extensions,
      );
      return made;
    },
  };
}

/**
 * Creates a {@link CertificateSet}: certificates as files in a temporary directory, for programs that take
 * paths (a router started with `--tls-cert`). Remove it with {@link CertificateSet.remove}.
 */
export async function createCertificateSet(): Promise<CertificateSet> {
  const dir = mkdtempSync(join(tmpdir(), "trestle-certs-"));
  const maker = certificateMaker(dir);
  return {
    dir,
    authority: async (name) => maker.authority(name),
    leaf: async (name, ca, options) => maker.leaf(name, ca, options),
    remove: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Generates {@link TestCertificates} as PEM texts with the `openssl` CLI; the files are removed afterwards. */
export function generateTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), "trestle-certs-"));
  try {
    const maker = certificateMaker(dir);
    const ca = maker.authority("ca", "Trestle Test CA");
    const otherCa = maker.authority("other-ca", "Someone Else's CA");
    const server = { subjectAltName: "IP:127.0.0.1,DNS:localhost", extendedKeyUsage: "serverAuth" };
    const client = {
      subjectAltName: "DNS:trestle-router",
      extendedKeyUsage: "clientAuth",
      commonName: "trestle-router",
    };
    const read = (made: CertificateFiles): PemPair => ({
      cert: readFileSync(made.cert, "utf8"),
      key: readFileSync(made.key, "utf8"),
    });
    const serverPair = read(maker.leaf("server", ca, { ...server, commonName: "localhost" }));
    const clientPair = read(maker.leaf("client", ca, client));
    const roguePair = read(maker.leaf("rogue", otherCa, client));
    return {
      ca: readFileSync(ca.cert, "utf8"),
      serverCert: serverPair.cert,
      serverKey: serverPair.key,
      clientCert: clientPair.cert,
      clientKey: clientPair.key,
      namedServer: read(maker.leaf("named-server", ca, { ...server, subjectAltName: "DNS:capability.test" })),
      otherCa: readFileSync(otherCa.cert, "utf8"),
      untrustedServer: read(
        maker.leaf("untrusted-server", otherCa, { ...server, subjectAltName: "IP:127.0.0.1" }),
      ),
      rogueClientCert: roguePair.cert,
      rogueClientKey: roguePair.key,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
