//! What a question weighs: its options, and the alternatives it names itself.

/// What a question weighs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    /// The options, in the question's order, with keeping what exists where the question
    /// implies it.
    pub options: Vec<String>,
    /// The alternatives the question names itself: things ("Redis", "Python"), or
    /// courses of action it spells out.
    pub named: Vec<String>,
    /// `named` are courses of action ("hire a contractor"): see `names`.
    pub(super) acting: bool,
}

impl Reading {
    pub(super) fn of(named: Vec<String>, kept: Option<String>) -> Reading {
        Reading { options: named.iter().cloned().chain(kept).collect(), named, acting: false }
    }

    /// Two ways that name nothing of the question's: a proposal and keeping, or yes and no.
    pub(super) fn ways(options: Vec<String>) -> Reading {
        Reading { options, ..Reading::default() }
    }

    /// The names of things among the alternatives: their words say what is chosen, not
    /// what the choice is about ("Redis or Postgres?" is no vote for what Redis is known
    /// for). A course of action's words are what it is about ("hire a contractor").
    pub fn names(&self) -> &[String] {
        match self.acting {
            true => &[],
            false => &self.named,
        }
    }
}
