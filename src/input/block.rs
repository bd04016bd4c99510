//! How much input is read at a time: the size of a block, shared by the readers in
//! [`super`] and the line size check in [`super::limit`].

/// How many bytes a block read asks for. The few blocks in flight (one being read, two
/// waiting, one being measured) then fit in the target machine's 32 MiB L3 cache, so the
/// cores parse bytes the read has just copied there: 8 MiB blocks, which do not fit, cost
/// `estimate` about 6% more CPU time (paired `farm-bench` runs on the 1 GiB bench files), and
/// 1 MiB blocks take 1.14x the wall time of these in hand-offs between threads.
pub const BLOCK_SIZE: usize = 2 << 20;
