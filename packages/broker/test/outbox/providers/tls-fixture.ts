/**
 * A self-signed test certificate for 127.0.0.1 and localhost (P-256, valid to 2126), made once with
 * `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days 36500 -nodes -subj /CN=localhost
 * -addext "subjectAltName=DNS:localhost,IP:127.0.0.1"`. It guards nothing: it only lets the loopback SMTP server
 * speak TLS.
 */
export const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg+MfWI9iNxD915PaI
UuQck8dT7xlTWjBaivBBcgIt5FShRANCAATnTAacg6WwYhPlHJp/ZhAyrC79bEc5
WFPRUCr5pCrmM+WFIvTbcjocE8XOU8SHTG4iwHSw6CqY7oE44dUf2WOw
-----END PRIVATE KEY-----
`;

export const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUPVW+FI2kIY4d3S3pzgKA6t4AjV0wCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMjAwMTMxN1oYDzIxMjYxMDI5
MDAxMzE3WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAATnTAacg6WwYhPlHJp/ZhAyrC79bEc5WFPRUCr5pCrmM+WFIvTbcjoc
E8XOU8SHTG4iwHSw6CqY7oE44dUf2WOwo28wbTAdBgNVHQ4EFgQUanQQYeyI4IVD
58aRUPUP3SHm5lswHwYDVR0jBBgwFoAUanQQYeyI4IVD58aRUPUP3SHm5lswDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSAAwRQIgGfTe6gAszGllcK/gDCc7IE7Aeowf/+Pu/EIY3C2iIkECIQCK
W55OReR9JXWuPxb075Hwd+WDUQkWJhoMPR8/WxNYwQ==
-----END CERTIFICATE-----
`;
