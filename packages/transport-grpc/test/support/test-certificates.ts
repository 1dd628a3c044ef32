import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** PEM material for the TLS tests, made by the `openssl` CLI in a temporary directory. */
export interface TestCertificates {
  /** The CA the clients trust. */
  ca: string;
  /** Server certificate signed by `ca`, for 127.0.0.1 and localhost. */
  server: { cert: string; key: string };
  /** Server certificate signed by `ca`, valid only for the name `capability.test`. */
  namedServer: { cert: string; key: string };
  /** Client certificate signed by `ca`, for mutual TLS. */
  client: { cert: string; key: string };
  /** Server certificate for 127.0.0.1 signed by a CA no client trusts. */
  untrustedServer: { cert: string; key: string };
}

/** Generates {@link TestCertificates} (EC P-256 keys, valid one day) and removes the files afterwards. */
export function generateTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), "trestle-grpc-tls-"));
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  const read = (name: string) => readFileSync(join(dir, name), "utf8");
  try {
    const makeCa = (name: string) =>
      run(
        "req",
        "-x509",
        ...ec,
        "-keyout",
        `${name}.key`,
        "-out",
        `${name}.crt`,
        "-days",
        "1",
        "-subj",
        `/CN=${name}`,
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
      );
    const makeLeaf = (name: string, ca: string, extensions: string) => {
      writeFileSync(join(dir, `${name}.ext`), extensions);
      run("req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`);
      run(
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        `${ca}.crt`,
        "-CAkey",
        `${ca}.key`,
        "-CAcreateserial",
        "-out",
        `${name}.crt`,
        "-days",
        "1",
        "-extfile",
        `${name}.ext`,
      );
      return { cert: read(`${name}.crt`), key: read(`${name}.key`) };
    };
    const serverUsage = "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n";
    makeCa("trusted-ca");
    makeCa("rogue-ca");
    return {
      ca: read("trusted-ca.crt"),
      server: makeLeaf("server", "trusted-ca", `${serverUsage}subjectAltName=IP:127.0.0.1,DNS:localhost\n`),
      namedServer: makeLeaf(
        "named-server",
        "trusted-ca",
        `${serverUsage}subjectAltName=DNS:capability.test\n`,
      ),
      client: makeLeaf(
        "client",
        "trusted-ca",
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n",
      ),
      untrustedServer: makeLeaf(
        "untrusted-server",
        "rogue-ca",
        `${serverUsage}subjectAltName=IP:127.0.0.1\n`,
      ),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
