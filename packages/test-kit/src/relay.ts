/** The enrollment token every test relay (in-process or spawned) is started with. */
export const ENROLLMENT_TOKEN = "nre_test-enrollment-token-0123456789abcdef";
