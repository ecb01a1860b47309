//! IPC commands about people: who the window is (the local admin), and the accounts and
//! sessions of those who sign in from a browser, which the window's admin manages.

use smsdesk_engine::access::{AccountInfo, Caller, Me, SessionInfo};
use smsdesk_engine::accounts::{AccountChange, NewAccount};
use tauri::State;

use crate::state::{refused, EngineState, Reply};

#[tauri::command]
pub async fn me(engine: State<'_, EngineState>) -> Reply<Me> {
    Ok(engine.service()?.me(&Caller::window(), None))
}

#[tauri::command]
pub async fn list_accounts(engine: State<'_, EngineState>) -> Reply<Vec<AccountInfo>> {
    engine.service()?.list_accounts().await.map_err(refused)
}

#[tauri::command]
pub async fn create_account(engine: State<'_, EngineState>, account: NewAccount) -> Reply<AccountInfo> {
    engine
        .service()?
        .create_account(&Caller::window(), account)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn update_account(engine: State<'_, EngineState>, id: i64, change: AccountChange) -> Reply<AccountInfo> {
    engine
        .service()?
        .update_account(&Caller::window(), id, change)
        .await
        .map_err(refused)
}

#[tauri::command]
pub async fn list_sessions(engine: State<'_, EngineState>) -> Reply<Vec<SessionInfo>> {
    engine.service()?.list_sessions().await.map_err(refused)
}

#[tauri::command]
pub async fn revoke_session(engine: State<'_, EngineState>, id: i64) -> Reply<()> {
    engine
        .service()?
        .revoke_session(&Caller::window(), id)
        .await
        .map_err(refused)
}
