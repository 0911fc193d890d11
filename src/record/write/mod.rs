//! Writing a record: where it goes and what it is called, the work tree it is written
//! into, and the commit that lands it (signed as git would sign it, one at a time, with
//! the decisions index beside it).

pub mod commit;
pub mod git;
pub mod index;
pub mod lock;
pub mod path;
pub mod preflight;
pub mod publish;
pub mod sign;
pub mod slug;
pub mod worktree;
