//! When work is worth handing to the thread pool. Starting the pool costs
//! thread start-up, and its idle threads spin and yield while they look
//! for work: more than all of a small bank's loading and ranking. Below a
//! size the work stays on the calling thread, and a command on a small
//! bank never starts the pool at all.

/// Items (files, articles, rows) below which work stays on one thread.
pub const SEQUENTIAL_BELOW: usize = 5_000;

/// Is `items` pieces of work enough to spread over the pool?
pub fn pays(items: usize) -> bool {
    items >= SEQUENTIAL_BELOW
}
