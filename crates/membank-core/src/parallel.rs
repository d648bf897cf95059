//! When work is worth handing to the thread pool. Starting the pool costs
//! thread start-up, and its idle threads spin and yield while they look
//! for work: more than all of a small bank's loading and ranking. Below a
//! size the work stays on the calling thread, and a command on a small
//! bank never starts the pool at all.

/// Items (files, articles, rows) below which work stays on one thread.
/// Measured on two cores: a 200-article bank's `context` is faster on one
/// thread, a 2,000-article one's clearly faster on the pool.
pub const SEQUENTIAL_BELOW: usize = 256;

/// Is `items` pieces of work enough to spread over the pool?
pub fn pays(items: usize) -> bool {
    items >= SEQUENTIAL_BELOW
}

/// Items below which a sort stays on the calling thread. The pool's sort
/// hands a part of the slice to another thread only when the part is
/// longer than 2,000 items, so most of a shorter sort runs on one thread
/// anyway, after being handed to the pool and waiting to be woken.
pub const SORT_SEQUENTIAL_BELOW: usize = 4096;

/// Is a sort of `items` worth handing to the pool?
pub fn sort_pays(items: usize) -> bool {
    items >= SORT_SEQUENTIAL_BELOW
}

/// Files at most in one piece of a parallel read. Left to itself the pool
/// cuts a read into a few long pieces (a quarter or an eighth of the bank)
/// and never splits a piece once a thread has started it, so at 100,000
/// files one thread read its last piece alone for tens of milliseconds
/// while the other waited; pieces this short (a millisecond or two of
/// reading) end within about one of each other.
pub const READ_PIECE_MOST: usize = 256;
