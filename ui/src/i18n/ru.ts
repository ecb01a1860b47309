import type { Dictionary } from "./en";

export const ru: Dictionary = {
  "app.name": "smsdesk",
  "app.tagline": "Отправка SMS и отчёты о доставке",

  "about.title": "Об этом экземпляре",
  "about.intro": "С каким движком связан этот экран и где он хранит данные.",
  "about.version": "Версия",
  "about.mode": "Режим",
  "about.dataDir": "Папка данных",
  "about.databasePath": "Файл базы данных",
  "about.configPath": "Файл конфигурации",
  "about.schemaVersion": "Версия схемы базы данных",
  "about.httpUrl": "HTTP-адрес",
  "about.httpUrl.none": "HTTP-сервер не запущен",
  "about.httpUrl.open": "Открыть {url} в браузере",
  "about.startedAt": "Запущен",

  "mode.window": "Окно приложения",
  "mode.serve": "Сервер без интерфейса",

  "state.loading": "Загрузка сведений об экземпляре…",

  "error.title": "Не удалось загрузить сведения об экземпляре",
  "error.unreachable": "Движок smsdesk не ответил. Убедитесь, что он запущен, и повторите попытку.",
  "error.badResponse": "Движок ответил в формате, который этот экран не понимает. Возможно, версии интерфейса и движка не совпадают.",
  "error.generic": "Движок сообщил об ошибке.",
  "error.code": "Код",
  "error.details": "Подробности",

  "action.retry": "Повторить",
};
