//! The terminal's lines as a log in order. The engine may run round N+1's arguments
//! while round N is still being judged; what they print waits until round N's end
//! line, so a log reads round after round however the work overlapped.

/// Where the log stands, and the lines (`L`) it holds back.
#[derive(Debug)]
pub struct InOrder<L> {
    /// The last round whose end line was printed.
    complete: u32,
    /// The last round whose header was printed.
    headed: u32,
    /// The round the lines being printed now belong to, if any.
    speaking_for: Option<u32>,
    /// Each with its round.
    held: Vec<(u32, L)>,
}

impl<L> Default for InOrder<L> {
    fn default() -> Self {
        InOrder::after(0)
    }
}

impl<L> InOrder<L> {
    /// A log that takes up after round `complete` ended (a resumed debate).
    pub fn after(complete: u32) -> InOrder<L> {
        InOrder { complete, headed: complete, speaking_for: None, held: Vec::new() }
    }

    /// The lines printed from now on belong to `round` (or to no round).
    pub fn speak_for(&mut self, round: Option<u32>) {
        self.speaking_for = round;
    }

    /// A line to print now, or `None` when it is held back for its turn.
    pub fn pass(&mut self, line: L) -> Option<L> {
        match self.speaking_for {
            Some(round) if round > self.complete + 1 => {
                self.held.push((round, line));
                None
            }
            _ => Some(line),
        }
    }

    /// Whether round `round` needs its header printed before its first line (a resumed
    /// debate's round began in an earlier run); marks it printed.
    pub fn needs_header(&mut self, round: u32) -> bool {
        let needed = round > self.headed;
        self.headed = self.headed.max(round);
        needed
    }

    /// Round `round` ended: the lines of the round after it may go, in the order they came.
    pub fn completed(&mut self, round: u32) -> Vec<L> {
        self.complete = self.complete.max(round);
        let limit = self.complete + 1;
        let (due, later): (Vec<_>, Vec<_>) = self.held.drain(..).partition(|(round, _)| *round <= limit);
        self.held = later;
        due.into_iter().map(|(_, line)| line).collect()
    }

    /// The debate ended or paused: whatever is held goes now.
    pub fn release(&mut self) -> Vec<L> {
        self.held.drain(..).map(|(_, line)| line).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(order: &mut InOrder<String>, round: u32, text: &str) -> Option<String> {
        order.speak_for(Some(round));
        let passed = order.pass(text.to_string());
        order.speak_for(None);
        passed
    }

    #[test]
    fn the_next_round_waits_for_the_end_line_of_the_one_before() {
        let mut order = InOrder::default();
        assert_eq!(said(&mut order, 1, "round 1 argument").as_deref(), Some("round 1 argument"));
        // Round 2 runs while round 1 is judged.
        assert_eq!(said(&mut order, 2, "round 2 header"), None);
        assert_eq!(said(&mut order, 2, "round 2 argument"), None);
        assert_eq!(order.completed(1), ["round 2 header", "round 2 argument"]);
        assert_eq!(said(&mut order, 2, "round 2 rebuttal").as_deref(), Some("round 2 rebuttal"));
        assert_eq!(order.pass("no round".into()).as_deref(), Some("no round"));
    }

    #[test]
    fn an_ending_releases_what_is_held_and_a_resumed_round_is_headed() {
        let mut order = InOrder::<String>::after(2);
        assert!(order.needs_header(3) && !order.needs_header(3));
        assert_eq!(said(&mut order, 4, "round 4 argument"), None);
        assert_eq!(order.release().len(), 1);
    }
}
