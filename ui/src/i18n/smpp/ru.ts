import type { smppEn } from "./en";

/** SMPP не только по открытому каналу: TLS до провайдера и собственный SMPP-сервер smsdesk. */
export const smppRu: { readonly [K in keyof typeof smppEn]: string } = {
  "setting.smpp.tls": "Использовать TLS (зашифрованное соединение)",
  "setting.smpp.tls_ca_file": "Файл удостоверяющих центров (PEM)",
  "setting.smpp.tls_server_name": "Имя в сертификате провайдера",
  "setting.smpp.tls_pin_sha256": "Закреплённый сертификат (SHA-256)",
  "setting.smpp.tls_client_cert_file": "Файл клиентского сертификата (PEM)",
  "setting.smpp.tls_client_key_file": "Файл ключа клиентского сертификата (PEM)",
  "settingHelp.smpp.tls":
    "Рекомендуется, если провайдер предлагает TLS-порт: пароль, сообщения и отчёты о доставке тогда передаются в зашифрованном виде. TLS-порт обычно отличается от открытого: узнайте его у провайдера и измените порт. С включённым TLS smsdesk никогда не переходит на открытый канал.",
  "settingHelp.smpp.tls_ca_file":
    "Только если сертификат провайдера подписан центром, которого этот компьютер не знает: путь к PEM-файлу этого центра. Пусто: центры, известные системе.",
  "settingHelp.smpp.tls_server_name":
    "Имя, на которое должен быть выдан сертификат, если вы подключаетесь по IP-адресу или под другим именем. Пусто: хост.",
  "settingHelp.smpp.tls_pin_sha256":
    "Для самоподписанного сертификата: его SHA-256 (64 шестнадцатеричные цифры, можно с двоеточиями, как выводит openssl x509 -noout -fingerprint -sha256). Тогда доверяется этот сертификат и никакой другой. Пусто: без закрепления.",
  "settingHelp.smpp.tls_client_cert_file":
    "Только если провайдер требует клиентский сертификат: путь к его PEM-файлу (с цепочкой). Пусто: нет.",
  "settingHelp.smpp.tls_client_key_file":
    "Закрытый ключ этого клиентского сертификата (PEM), доступный для чтения только пользователю smsdesk.",
  "settings.tls.title": "Шифрование (TLS)",
  "settings.tls.clear":
    "Сохранено с TLS: без него пароль и сообщения передавались бы открытым текстом. Поэтому проверка попросит пароль: сохранённый отправляется только через TLS.",
  "settings.tls.clientUntested":
    "Проверка использует сохранённые клиентский сертификат и ключ: введённые здесь начнут использоваться после сохранения.",
  "settings.tls.pin.invalid":
    "SHA-256 — это 64 шестнадцатеричные цифры (0–9 и A–F), можно с двоеточиями, как выводит openssl.",

  "settings.test.tls": "Проблема с сертификатом — ничего не отправлено",
  "settings.test.check.tls":
    "Зашифрованное соединение установить не удалось, поэтому smsdesk ничего не отправил, даже пароль. Проверьте файл удостоверяющих центров, имя в сертификате и закреплённый сертификат или спросите провайдера, какой сертификат предъявляет его TLS-порт.",
  "settings.test.tls.problem": "В чём проблема:",
  "fieldError.required.password":
    "Введите пароль для этого сервера: сохранённый пароль отправляется только на тот сервер, для которого он сохранён (тот же хост, порт и System ID), и только через TLS, если он сохранён для TLS.",

  "settings.connections.tls": "Шифрование (TLS)",
  "settings.connections.tls.file":
    "Этот список не меняет TLS: при сохранении остаётся то, что задано для подключения в файле конфигурации ([connections.{name}]: tls = true, tls_ca_file, tls_server_name, tls_pin_sha256, tls_client_cert_file, tls_client_key_file). Выбранное ниже используется только для проверки.",
  "settings.connections.tls.choice": "TLS для проверки",
  "settings.connections.tls.saved": "Как сохранено в файле конфигурации",
  "settings.connections.tls.on": "Использовать TLS",
  "settings.connections.tls.off": "Без TLS (открытым текстом)",
  "settings.connections.tls.client": "Клиентский сертификат, если он нужен, берётся из файла конфигурации.",

  "settings.section.smppServer": "SMPP-сервер",
  "settings.section.smppServer.intro":
    "Собственный SMPP-сервер smsdesk для систем офиса, которые отправляют SMS только по SMPP (АТС, лабораторная система): переданное ими попадает в ту же очередь. Изменения вступают в силу после перезапуска.",
  "settings.section.smppServer.accounts": "Его учётные записи — на экране API-ключей.",
  "setting.smpp_server.enabled": "Принимать SMPP от систем офиса",
  "setting.smpp_server.bind": "Адрес для прослушивания",
  "setting.smpp_server.port": "Порт",
  "setting.smpp_server.tls": "Только через TLS",
  "setting.smpp_server.tls_cert_file": "Файл сертификата сервера (PEM, с цепочкой)",
  "setting.smpp_server.tls_key_file": "Файл ключа сертификата сервера (PEM)",
  "settingHelp.smpp_server.bind":
    "127.0.0.1: только этот компьютер. 0.0.0.0: также сеть офиса (тогда используйте TLS).",
  "settingHelp.smpp_server.port": "2775 — обычный порт SMPP.",
  "settingHelp.smpp_server.tls":
    "Клиенты тогда подключаются только через TLS, с сертификатом ниже: рекомендуется, если сервер доступен не только с этого компьютера.",
  "settingHelp.smpp_server.tls_key_file": "Доступен для чтения только пользователю smsdesk.",

  "smppServer.title": "SMPP-сервер",
  "smppServer.listening": "Принимает подключения на {address}",
  "smppServer.tls": "TLS",
  "smppServer.clear": "Без TLS",
  "smppServer.problem": "SMPP-сервер не принимает подключения",
  "smppServer.starting": "Ещё не принимает подключения: запускается.",
  "smppServer.none": "Нет подключённых клиентов.",
  "smppServer.table": "Клиенты, подключённые к SMPP-серверу",
  "smppServer.col.account": "Учётная запись",
  "smppServer.col.bind": "Режим",
  "smppServer.col.peer": "Адрес",
  "smppServer.col.tls": "TLS",
  "smppServer.col.since": "С",
  "smppServer.col.submitted": "Передано",
  "smppServer.col.refused": "Отклонено",
  "smppServer.col.rate": "В секунду",
  "smppServer.col.delivered": "Доставлено отчётов",
  "smppServer.bind.transceiver": "Трансивер",
  "smppServer.bind.transmitter": "Передатчик",
  "smppServer.bind.receiver": "Приёмник",
  "smppServer.session.clear": "Нет",
  "smppServer.waiting.none": "Нет отчётов, ожидающих своего клиента.",
  "smppServer.waiting.one": "{count} отчёт ждёт своего клиента",
  "smppServer.waiting.few": "{count} отчёта ждут своего клиента",
  "smppServer.waiting.many": "{count} отчётов ждут своего клиента",
  "smppServer.waiting.other": "{count} отчёта ждут своего клиента",
};
