/**
 * A self-signed certificate for `hooks.test` and 127.0.0.1 (P-256, valid 2000–2125, so no
 * machine clock trips it), with its key: for the sender's TLS tests only, trusted nowhere else.
 * Made once with Python's `cryptography` (CertificateBuilder, SAN DNS:hooks.test + IP:127.0.0.1,
 * basicConstraints CA:TRUE so it can be its own trust anchor).
 */
export const testKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgST1bTHNCIO82+xrV
UctieFsfynHHX0/6v4kmRPjyvGahRANCAAQUZSvtE2uyCS34rlsiAikNdFNvNhoT
EZct5/YzKh6RHRSDmtwtu1Ry1ETBDZ9t656ydeFNLSNr74Jm4DQYDNqR
-----END PRIVATE KEY-----
`;

export const testCert = `-----BEGIN CERTIFICATE-----
MIIBXTCCAQSgAwIBAgIUZ2HMAXLtbhwotAtdvDOTC96248owCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKaG9va3MudGVzdDAgFw0wMDAxMDEwMDAwMDBaGA8yMTI1MDEw
MTAwMDAwMFowFTETMBEGA1UEAwwKaG9va3MudGVzdDBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABBRlK+0Ta7IJLfiuWyICKQ10U282GhMRly3n9jMqHpEdFIOa3C27
VHLURMENn23rnrJ14U0tI2vvgmbgNBgM2pGjMDAuMBsGA1UdEQQUMBKCCmhvb2tz
LnRlc3SHBH8AAAEwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiAU
w+rLq+TGfj0rpZWNrtW5MQUo9CVvcUd+fXBOThFYHgIgOEHahEbwnOX6NVi7ngAx
wcdvLrdPoD430sVDaZ7BNOg=
-----END CERTIFICATE-----
`;
