//! Delivery reports coming in: posted by an HTTP provider, or handed over by an SMPP session.
//! Both go to the ingestor the settings put in place last.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Service, ServiceError};
use crate::receipts::ingest::{HttpReceived, Ingested, SmppReceived};
use crate::smpp::session::InboundHandler;

/// What an HTTP provider's callback became.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct CallbackAnswer {
    /// How many reports the request carried (each is stored).
    pub received: usize,
}

impl Service {
    /// Stores an HTTP provider's delivery report (every report it carries), then applies it;
    /// returns once committed, so the provider's 2xx means the evidence is on disk.
    pub async fn callback(&self, r: HttpReceived) -> Result<Vec<Ingested>, ServiceError> {
        Ok(self.ingestor().http(r).await?)
    }
}

/// SMPP sessions hand their reports to the service, which passes them to whichever ingestor the
/// settings put in place last (receipt rules change without a restart).
impl InboundHandler for Service {
    fn deliver(
        &self,
        reports: Vec<SmppReceived>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Vec<bool>> + Send + '_>> {
        let ingestor = self.ingestor();
        Box::pin(async move { InboundHandler::deliver(&ingestor, reports).await })
    }
}
