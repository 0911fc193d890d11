//! The offline provider: composes arguments from the catalog's priorities and the
//! options in the question. No network, no key, and no model reasoning — it is
//! labelled as such wherever its words appear.

use async_trait::async_trait;

use super::{Brief, Counted, Provider, Request, Result};
use crate::model::{
    Completion, Confidence, Consequences, Identity, OptionAssessment, PerspectiveDef, PerspectiveSummary, ProviderKind,
    Purpose, Stance, Synthesis,
};

pub const OFFLINE_LABEL: &str = "the offline provider (composed from the catalog, not reasoned by a model)";

pub struct Offline;

#[async_trait]
impl Provider for Offline {
    fn identity(&self) -> Identity {
        Identity { kind: ProviderKind::Offline, reasoned: false }
    }

    async fn complete(&self, request: &Request) -> Result<Completion> {
        let text = match (&request.purpose, &request.brief) {
            (Purpose::Argument, Brief::Debater { perspective, seat, question, options, others }) => {
                let text = argument(perspective, *seat, question, options, others, request.round);
                with_stance(text, perspective, *seat, options)
            }
            (Purpose::Rebuttal, Brief::Debater { perspective, seat, options, others, .. }) => {
                let text = rebuttal(perspective, *seat, options, others, request.round);
                with_stance(text, perspective, *seat, options)
            }
            // The moderator's own local reading of the round, as a model would write it.
            (Purpose::Evaluation, Brief::Evaluation { local }) => json(local),
            (Purpose::Synthesis, Brief::Synthesis { panel, options }) => json(&synthesis(panel, options)),
            // Analysis: keep the keyword panel as it is.
            _ => "{}".to_string(),
        };
        Ok(Counted::default().completion(request, text, "offline"))
    }
}

/// The option a seat leans to: seats take the named options in turn, so a binary
/// question gets one debater on each side.
fn favoured(options: &[String], seat: usize) -> Option<&String> {
    (!options.is_empty()).then(|| &options[seat % options.len()])
}

/// The contribution with the stance line every debater ends with: the seat's option.
fn with_stance(text: String, p: &PerspectiveDef, seat: usize, options: &[String]) -> String {
    let Some(option) = favoured(options, seat) else { return text };
    let stance = serde_json::json!({
        "option": option,
        "confidence": "low",
        "would_change_if": format!("another option serves {} better", p.priorities[0]),
        "concedes": "the other options have merits this catalog entry does not weigh",
    });
    format!("{text}\n\n{} {stance}", Stance::MARKER)
}

fn priority(p: &PerspectiveDef, round: u32) -> &str {
    &p.priorities[(round as usize - 1) % p.priorities.len()]
}

fn argument(
    p: &PerspectiveDef,
    seat: usize,
    question: &str,
    options: &[String],
    others: &[PerspectiveDef],
    round: u32,
) -> String {
    let focus = priority(p, round);
    let stance = match favoured(options, seat) {
        Some(option) => format!("{option} is the better fit, because it serves {focus} most directly"),
        None => format!("the answer to \u{201c}{}\u{201d} should be judged first on {focus}", question.trim()),
    };
    let rival = others.first().map_or(String::new(), |o| {
        format!(" Where {} would optimise for {}, this perspective holds that {focus} decides the outcome over the life of the system.", o.name, o.priorities[0])
    });
    format!(
        "{stance}. {name} weighs {all} and {trade}.{rival} \
         The point to settle in round {round} is how each option behaves on {focus}: what it costs to get right, and what breaks first when it is neglected.",
        name = p.name,
        all = p.priorities.join(", "),
        trade = p.trade_offs.to_lowercase(),
    )
}

fn rebuttal(p: &PerspectiveDef, seat: usize, options: &[String], others: &[PerspectiveDef], round: u32) -> String {
    let focus = priority(p, round);
    let mine = favoured(options, seat).map_or("this perspective's position".to_string(), |o| o.clone());
    others
        .iter()
        .map(|o| {
            let theirs = o.priorities[(round as usize - 1) % o.priorities.len()].as_str();
            format!(
                "To {}: {theirs} matters, but not at the expense of {focus}; {mine} keeps {focus} within reach while {theirs} can be recovered later.",
                o.name
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn json<T: serde::Serialize>(answer: &T) -> String {
    serde_json::to_string(answer).expect("answers serialise")
}

fn synthesis(panel: &[PerspectiveDef], options: &[String]) -> Synthesis {
    let perspectives = panel
        .iter()
        .enumerate()
        .map(|(seat, p)| {
            let lean = favoured(options, seat).map_or(String::new(), |o| format!("favours {o}; "));
            PerspectiveSummary {
                name: p.name.clone(),
                key_arguments: vec![format!("{lean}optimises for {}", p.priorities.join(", "))],
                trade_offs_accepted: vec![p.trade_offs.clone()],
            }
        })
        .collect();
    let tensions = panel
        .iter()
        .enumerate()
        .flat_map(|(i, a)| {
            panel[i + 1..]
                .iter()
                .filter(|b| a.opposes.contains(&b.name) || b.opposes.contains(&a.name))
                .map(move |b| (a, b))
        })
        .map(|(a, b)| format!("{} ({}) against {} ({})", a.name, a.priorities[0], b.name, b.priorities[0]))
        .collect();
    let subject = if options.is_empty() { "the options".to_string() } else { options.join(" or ") };
    Synthesis {
        // No model names the decision: the question's own title stands.
        title: String::new(),
        perspectives,
        options: options
            .iter()
            .map(|option| {
                let favoured_by: Vec<&str> = panel
                    .iter()
                    .enumerate()
                    .filter(|(seat, _)| favoured(options, *seat) == Some(option))
                    .map(|(_, p)| p.name.as_str())
                    .collect();
                let pros = favoured_by.iter().map(|name| format!("favoured by {name} (catalog priorities)")).collect();
                OptionAssessment { option: option.clone(), pros, cons: Vec::new() }
            })
            .collect(),
        chosen_option: None,
        rationale: String::new(),
        agreement: vec![format!(
            "Every perspective wants {subject} judged against explicit criteria rather than habit."
        )],
        tensions,
        recommendation: format!(
            "No model reasoned about this question. Weigh {subject} against the criteria above, starting with the tensions listed; \
             run the debate again with a configured provider for a reasoned recommendation."
        ),
        confidence: Confidence::Low,
        caveats: vec![
            "These arguments were composed from the perspective catalog, not from knowledge of this project.".into(),
        ],
        consequences: Consequences::default(),
        confirmation: String::new(),
        action_items: Vec::new(),
        dissents: Vec::new(),
        contradicts: Vec::new(),
    }
}
