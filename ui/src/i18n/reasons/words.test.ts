import { describe, expect, it } from "vitest";
import type { QueueReason } from "../../bindings/QueueReason";
import type { QueueView } from "../../bindings/QueueView";
import type { RetryFact } from "../../bindings/RetryFact";
import { QUEUE_REASON_CODES, RETRY_FACT_CODES } from "../../bindings/codes";
import { createI18n, LOCALES } from "../i18n";
import { auditActorWords, auditDetailWords, queueReasonWords, reasonWords, retryFactWords } from "./words";

const en = createI18n(["en"]).t;
const fr = createI18n(["fr"]).t;
const ru = createI18n(["ru"]).t;

function queue(reason: QueueReason | null, last_error: string | null): QueueView {
  return {
    status: "failed",
    attempts: 1,
    next_attempt_at_ms: 0,
    last_error,
    queue_priority: 10,
    lease_owner: null,
    lease_until_ms: null,
    updated_at_ms: 0,
    accepted_at_ms: null,
    provider_message_ids: [],
    route: null,
    pinned: null,
    reason,
  };
}

const refused: QueueReason = {
  code: "refused_permanent",
  params: { status: "ESME_RINVDSTADR", command_status: "0x0000000B", tries: "1" },
};

/** Parameters each code is written with by the engine, so that its most specific words are used. */
const SAMPLE_REASON_PARAMS: Record<string, Record<string, string>> = {
  refused_temporary: { status: "ESME_RSYSERR", tries: "2", at_ms: "0" },
  refused_permanent: refused.params,
  throttled: { status: "ESME_RTHROTTLED", tries: "1" },
  opted_out: { phone: "+33612345600", via: "reply", keyword: "STOP" },
  resent_by_policy: { after: "timeout" },
  operator: { action: "cancelled", actor: "Olga" },
  partly_sent: { because: "expired", parts: "3" },
  rerouted: { connection: "backup" },
  unusual_volume: { country: "GB", count: "42", average: "1.5" },
};

const SAMPLE_FACT_PARAMS: Record<string, Record<string, string>> = {
  in_flight: { status: "queued" },
  opted_out: { phone: "+33612345600" },
  limit_reached: { limit: "tries", kind: "otp", tries: "2", max: "2" },
  will_fail_again: { status: "ESME_RINVDSTADR" },
  rejected_by_network: { state: "rejected" },
  may_arrive_twice: { risk: "accepted" },
};

describe("queue reasons in words", () => {
  it("a refusal names the SMPP status in words, its code in brackets", () => {
    expect(reasonWords(refused, en)).toBe(
      "The SMSC refused it for good: Invalid destination: the phone number was refused (ESME_RINVDSTADR).",
    );
    expect(reasonWords(refused, fr)).toBe(
      "Le SMSC l’a refusé définitivement : Destinataire invalide : le numéro a été refusé (ESME_RINVDSTADR).",
    );
    expect(reasonWords(refused, ru)).toContain("(ESME_RINVDSTADR)");
  });

  it("says what came of it: no tries left, or the next try when a time format is given", () => {
    const ended: QueueReason = { code: "refused_temporary", params: { status: "ESME_RSYSERR", end: "attempts_exhausted" } };
    expect(reasonWords(ended, en)).toBe("The SMSC refused it for now: System error at the SMSC (ESME_RSYSERR). No tries left.");
    const again: QueueReason = { code: "throttled", params: { status: "ESME_RTHROTTLED", at_ms: "1000" } };
    expect(reasonWords(again, en, (ms) => `at ${ms}`)).toMatch(/Next try: at 1000\.$/);
    expect(reasonWords(again, en)).not.toContain("Next try");
  });

  it("an opt-out says how the number got on the list", () => {
    const reply: QueueReason = { code: "opted_out", params: { phone: "+33612345600", via: "reply", keyword: "STOP" } };
    expect(reasonWords(reply, en)).toBe("Not sent: +33612345600 asked to stop by replying “STOP”.");
    expect(reasonWords(reply, fr)).toBe("Non envoyé : le +33612345600 a demandé l’arrêt en répondant « STOP ».");
    const due: QueueReason = { code: "opted_out", params: { phone: "+33612345600", via: "due" } };
    expect(reasonWords(due, en)).toBe("Not sent: +33612345600 was found on the opt-out list when it was due.");
  });

  it("a message partly sent names what stopped the other parts", () => {
    const partly: QueueReason = {
      code: "partly_sent",
      params: { because: "refused_permanent", parts: "3", status: "ESME_RINVDSTADR" },
    };
    expect(reasonWords(partly, en)).toBe(
      "Only some of its 3 parts went out. The SMSC refused it for good: Invalid destination: the phone number was refused (ESME_RINVDSTADR).",
    );
  });

  it("falls back to the engine's sentence for an old row or a code this version does not know", () => {
    expect(queueReasonWords(queue(null, "an old sentence"), fr)).toBe("an old sentence");
    expect(queueReasonWords(queue(null, null), fr)).toBeNull();
    const later = { code: "from_a_later_version", params: {} } as unknown as QueueReason;
    expect(queueReasonWords(queue(later, "the engine's words"), fr)).toBe("the engine's words");
    expect(queueReasonWords(queue(refused, "ESME_RINVDSTADR (0x0000000B): …"), fr)).toContain("définitivement");
  });

  for (const locale of LOCALES) {
    it(`every reason code has words in ${locale}`, () => {
      const t = createI18n([locale]).t;
      for (const code of QUEUE_REASON_CODES) {
        const words = reasonWords({ code, params: SAMPLE_REASON_PARAMS[code] ?? {} }, t);
        expect(words, code).toBeDefined();
        expect(words, code).not.toMatch(/[{}]/);
      }
    });
  }
});

describe("retry facts in words", () => {
  it("the tries limit names the kind, the count and the limit", () => {
    const f: RetryFact = { code: "limit_reached", params: { limit: "tries", kind: "otp", tries: "2", max: "2" } };
    expect(retryFactWords(f, en)).toBe("Its tries are used up: 2 of the 2 allowed for a one-time code.");
    expect(retryFactWords(f, fr)).toBe("Ses tentatives sont épuisées : 2 sur les 2 permises pour un code à usage unique.");
    expect(retryFactWords(f, ru)).toBe("Попытки исчерпаны: 2 из 2 допустимых для одноразового кода.");
  });

  it("a rejection by the network speaks of the rejection, not of arriving twice", () => {
    const f: RetryFact = { code: "rejected_by_network", params: { state: "rejected" } };
    expect(retryFactWords(f, en)).toContain("rejected");
    expect(retryFactWords(f, en)).not.toContain("twice");
    expect(retryFactWords({ code: "rejected_by_network", params: { state: "undeliverable" } }, en)).toContain(
      "undeliverable",
    );
  });

  it("a permanent refusal names its status in words", () => {
    const f: RetryFact = { code: "will_fail_again", params: { status: "ESME_RINVDSTADR" } };
    expect(retryFactWords(f, en)).toContain("Invalid destination: the phone number was refused (ESME_RINVDSTADR)");
  });

  for (const locale of LOCALES) {
    it(`every fact code has words in ${locale}`, () => {
      const t = createI18n([locale]).t;
      for (const code of RETRY_FACT_CODES) {
        const words = retryFactWords({ code, params: SAMPLE_FACT_PARAMS[code] ?? {} }, t);
        expect(words, code).not.toBe(code);
        expect(words, code).not.toMatch(/[{}]/);
      }
    });
  }
});

describe("audit entries in words", () => {
  it("an opt-out by reply names the number and the keyword", () => {
    const entry = {
      action: "opt_out.reply" as const,
      details: { phone: "+33612345600", reason: "reply", keyword: "STOP", held_messages: [4, 5] },
    };
    expect(auditDetailWords(entry, en)).toBe("+33612345600, by replying “STOP”. Messages held: 2");
    expect(auditDetailWords(entry, fr)).toBe("+33612345600, en répondant « STOP ». Messages retenus : 2");
  });

  it("a settings change names the keys; the first admin says it came by the setup link", () => {
    expect(auditDetailWords({ action: "settings.update", details: { keys: ["intake.default_region"] } }, fr)).toBe(
      "Modifié : intake.default_region",
    );
    const admin = { action: "account.create" as const, details: { name: "Ada", role: "admin", via: "setup_link" } };
    expect(auditDetailWords(admin, en)).toBe("Ada (Admin), by the setup link");
    const update = { action: "account.update" as const, details: { name: "Olga", role: ["operator", "viewer"], disabled: true } };
    expect(auditDetailWords(update, en)).toBe("Olga: role Operator → Viewer, disabled");
  });

  it("a held message says why, and a confirmed retry the status it went past", () => {
    const hold = { action: "message.hold_opted_out" as const, details: { opt_out_id: 1, phone: "+33612345600", via: "due" } };
    expect(auditDetailWords(hold, ru)).toBe("К моменту отправки номер +33612345600 был в списке отказов");
    const retry = { action: "message.retry_permanent_confirmed" as const, details: { command_status: "ESME_RINVDSTADR" } };
    expect(auditDetailWords(retry, en)).toBe(
      "Refused for good before: Invalid destination: the phone number was refused (ESME_RINVDSTADR)",
    );
  });

  it("a retention run and an erasure say what they removed; an access, how much it gave", () => {
    const run = {
      action: "retention.run" as const,
      details: {
        started_at_ms: 1,
        took_ms: 40,
        redacted: { texts: 12, numbers: 3, receipts: 4, replies: 0, opt_outs: 0, audit: 0, cancelled: 0 },
        batches: 2,
        longest_batch_ms: 9,
        wal_emptied: true,
      },
    };
    expect(auditDetailWords(run, en)).toBe("Removed: Texts: 12, Numbers: 3, Receipts: 4");
    expect(auditDetailWords(run, fr)).toBe("Supprimé : Textes : 12, Numéros : 3, Accusés de réception : 4");
    const nothing = { action: "retention.run" as const, details: { ...run.details, redacted: { texts: 0 } } };
    expect(auditDetailWords(nothing, en), "an older engine's counts, all none").toBe("Nothing was removed");
    const erase = {
      action: "privacy.erase" as const,
      details: { redacted: { texts: 2, numbers: 2, receipts: 0, replies: 1, opt_outs: 1, audit: 0, cancelled: 1 }, still_sending: 1 },
    };
    expect(auditDetailWords(erase, en)).toBe(
      "Removed: Texts: 2, Numbers: 2, Replies: 1, Opt-out entries: 1, Messages cancelled: 1. Still being sent: 1",
    );
    expect(auditDetailWords({ action: "privacy.access", details: { number_hash: "h:00", items: 5 } }, ru)).toBe("Выдано записей: 5");
    expect(auditDetailWords({ action: "privacy.erase", details: { redacted: "?" } }, en), "details it cannot read").toBeNull();
  });

  it("a lost one-time code says the website asks for a new one", () => {
    expect(reasonWords({ code: "code_lost", params: {} }, en)).toBe(
      "Not sent: a one-time code, sealed with a key held only in memory by the smsdesk that took it in, which stopped before sending it; the website asks for a new code.",
    );
    expect(reasonWords({ code: "code_lost", params: {} }, fr)).toContain("le site demande un nouveau code");
    expect(reasonWords({ code: "code_lost", params: {} }, ru)).toContain("сайт запросит новый код");
  });

  it("an entry without details, or with details this version does not word, has no words", () => {
    expect(auditDetailWords({ action: "message.retry", details: null }, en)).toBeNull();
    expect(auditDetailWords({ action: "message.cancel", details: { anything: 1 } }, en)).toBeNull();
  });

  it("actors: smsdesk itself, people by name, and the older forms worded", () => {
    expect(auditActorWords("system", en)).toBe("smsdesk (automatic)");
    expect(auditActorWords("retention", en)).toBe("smsdesk (daily retention)");
    expect(auditActorWords("Ada", fr)).toBe("Ada");
    expect(auditActorWords("Ada (setup link)", fr)).toBe("Ada (lien d’installation)");
    expect(auditActorWords("+33612345600 (reply)", ru)).toBe("+33612345600 (ответом)");
    expect(auditActorWords("api key crm", fr)).toBe("Clé d’API crm");
    expect(auditActorWords("ann (desktop)", en)).toBe("ann (this computer’s window)");
  });
});
