//! The fingerprint of the records a plan compacts, by which `inject --plan` checks they are
//! unchanged.

use crate::transcript::Record;

/// FNV-1a over the raw bytes of `records`, each followed by a newline: a cheap fingerprint that
/// changes when any byte of them does.
pub fn fingerprint(records: &[Record]) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET;
    for record in records {
        for &byte in record.raw.iter().chain(b"\n") {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(PRIME);
        }
    }
    format!("fnv1a64:{hash:016x}")
}
