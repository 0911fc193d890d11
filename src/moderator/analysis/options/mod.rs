//! The options a question weighs, read as a reviewer reads the question — the names a
//! record lists under "Considered Options", never a clause of the question:
//!
//! - alternatives joined by "or", "vs", "versus" and commas ("A, B or C"), in English,
//!   German, French, Spanish, Italian and Portuguese, Japanese "XとYのどちら" and "XかYか",
//!   Chinese "X还是Y" and "X或Y"; "between A and B" when no "or" joins alternatives (with
//!   one, "between the order service and the inventory service" is what they are for);
//! - a preposition the alternatives share ("in Redis or in Postgres": Redis · Postgres),
//!   a qualifier that shares the other's noun ("blue-green or canary deployments"), "do we
//!   need X, or is Y enough?";
//! - courses of action ("split billing out, or keep it as a module?"), kept whole unless
//!   each only chooses a thing ("adopt Terraform, Pulumi or stay with hand-written
//!   CloudFormation?": Terraform · Pulumi · CloudFormation);
//! - a change: "from A to B or C" keeps A as a way; "is it worth rewriting X from A to B?"
//!   and "should we move X from A to B?" weigh making it against keeping A;
//! - a question with no alternatives: what it proposes against keeping what we have, or
//!   yes and no.

mod actions;
mod cjk;
mod names;
mod reading;
mod ways;
mod words;

pub use reading::Reading;

use actions::actions;
use cjk::cjk_options;
use names::{between, names};
use ways::{worth, yes_no};
use words::{is_connector, tokens};

/// How `question` reads: the alternatives it names, or the two ways of one that names none.
pub fn read(question: &str) -> Reading {
    let cjk = cjk_options(question);
    if cjk.len() >= 2 {
        return Reading::of(cjk, None);
    }
    let tokens = tokens(question);
    alternatives(&tokens)
        .or_else(|| between(&tokens))
        .or_else(|| worth(question))
        .or_else(|| yes_no(question))
        .unwrap_or_default()
}

/// The alternatives around the first connector that joins two.
fn alternatives(tokens: &[String]) -> Option<Reading> {
    (0..tokens.len())
        .filter(|&at| is_connector(tokens, at))
        .find_map(|at| actions(tokens, at).or_else(|| names(tokens, at)))
}

#[cfg(test)]
mod tests;
