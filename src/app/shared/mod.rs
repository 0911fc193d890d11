//! What several commands share: the question and context files read and masked, the
//! project context of a new debate, a stored debate found, the engine driven, and what
//! a finished run prints, and what runs spend.

pub mod drive;
pub mod existing;
pub mod input;
pub mod project;
pub mod receipt;
pub mod report;
pub mod spending;
pub mod verification;
