//! What a record asks for beyond itself: the issue draft and the pull request lines.

pub mod issue;
pub mod pull_request;
