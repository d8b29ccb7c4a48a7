/**
 * What the phone keeps, all in one IndexedDB database on this origin (docs/phone.md): the device key pair (the
 * private key a non-extractable CryptoKey), the pairing (device id and token), the envelope cursor, the cards,
 * the answer bodies not yet confirmed, and a local log. The service worker reads the same database.
 */
const DB_NAME = "notify-phone";
const STORE = "kv";

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** One transaction: every request `work` makes commits together (or none does); resolves with the returned one's result. */
async function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const transaction = db.transaction(STORE, mode);
      const request = work(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error);
    });
  } finally {
    db.close();
  }
}

export const get = <T>(key: string): Promise<T | undefined> =>
  run("readonly", (store) => store.get(key) as IDBRequest<T | undefined>);
export const put = (key: string, value: unknown): Promise<IDBValidKey> =>
  run("readwrite", (store) => store.put(value, key));
export const remove = (key: string): Promise<undefined> => run("readwrite", (store) => store.delete(key));

export interface Pairing {
  deviceId: string;
  token: string;
  ownerId: string;
  deviceName: string;
}

export interface DeviceKeys {
  privateKey: CryptoKey;
  publicJwk: JsonWebKey;
}

/** Phone behaviour 5: an unknown contract_version renders nothing and is logged here, on the phone only. */
export async function logLocally(line: string): Promise<void> {
  const log = (await get<string[]>("log")) ?? [];
  log.push(`${new Date().toISOString()} ${line}`);
  await put("log", log.slice(-200));
}

/** Why the phone was last unpaired, kept until it pairs again. */
export const UNPAIRED_REASON = "unpaired-reason";

/**
 * 401 wipes the pairing (Phone behaviour 4): keys, token, cursor, cards and unsent answers all go, and the reason is
 * kept, in one transaction. A page closed or reloaded part way (the test reloads right after revoking, while the held
 * poll's 401 is being handled) then finds either the old pairing, which meets the same 401 again, or no pairing and
 * the reason; never no pairing and no reason.
 */
export const wipePairing = (reason: string): Promise<IDBValidKey> =>
  run("readwrite", (store) => {
    for (const key of ["pairing", "keys", "cursor", "cards", "outbox"]) store.delete(key);
    return store.put(reason, UNPAIRED_REASON);
  });
