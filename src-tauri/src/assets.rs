//! The UI built into the binary, shared between the Tauri window and the engine's HTTP server.

use std::borrow::Cow;
use std::sync::Arc;

use smsdesk_http::UiAssets;
use tauri::utils::assets::{AssetKey, AssetsIter, CspHash};
use tauri::{Assets, Context, Wry};

struct Shared(Arc<dyn Assets<Wry>>);

impl Assets<Wry> for Shared {
    fn setup(&self, app: &tauri::App<Wry>) {
        self.0.setup(app)
    }
    fn get(&self, key: &AssetKey) -> Option<Cow<'_, [u8]>> {
        self.0.get(key)
    }
    fn iter(&self) -> Box<AssetsIter<'_>> {
        self.0.iter()
    }
    fn csp_hashes(&self, html_path: &AssetKey) -> Box<dyn Iterator<Item = CspHash<'_>> + '_> {
        self.0.csp_hashes(html_path)
    }
}

impl UiAssets for Shared {
    fn get(&self, path: &str) -> Option<Cow<'_, [u8]>> {
        self.0.get(&AssetKey::from(path))
    }
}

/// Used only for the instant the real assets are moved out of the context.
struct Nothing;

impl Assets<Wry> for Nothing {
    fn get(&self, _: &AssetKey) -> Option<Cow<'_, [u8]>> {
        None
    }
    fn iter(&self) -> Box<AssetsIter<'_>> {
        Box::new(std::iter::empty())
    }
    fn csp_hashes(&self, _: &AssetKey) -> Box<dyn Iterator<Item = CspHash<'_>> + '_> {
        Box::new(std::iter::empty())
    }
}

/// Moves the context's assets behind a shared handle and returns that handle for the engine.
pub fn share(context: &mut Context<Wry>) -> Arc<dyn UiAssets> {
    let embedded: Arc<dyn Assets<Wry>> = Arc::from(context.set_assets(Box::new(Nothing)));
    context.set_assets(Box::new(Shared(embedded.clone())));
    Arc::new(Shared(embedded))
}
