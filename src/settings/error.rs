//! What goes wrong with settings.

/// A settings file, variable or value that cannot be used: what is wrong, and what to do.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct SettingsError {
    pub message: String,
    pub hint: Option<String>,
}

impl SettingsError {
    pub fn exit_code(&self) -> u8 {
        4
    }

    pub fn hint(&self) -> Option<String> {
        self.hint.clone()
    }

    pub(super) fn new(message: impl Into<String>) -> SettingsError {
        SettingsError { message: message.into(), hint: None }
    }

    pub(super) fn with_hint(mut self, hint: impl Into<String>) -> SettingsError {
        self.hint = Some(hint.into());
        self
    }
}
