import type { settingsAlertsEn } from "./en";

/** Настройки: правила оповещений, их каналы и SMTP-сервер, через который они уходят. */
export const settingsAlertsRu: { readonly [K in keyof typeof settingsAlertsEn]: string } = {
  "settings.section.alerts": "Оповещения и почта",
  "settings.section.alerts.intro":
    "О чём smsdesk предупреждает, когда никто не следит, и как: по почте, на вебхук каждого API-ключа с областью «alerts» и в этом окне. Каждое правило описано в {doc}.",
  "settings.section.alerts.open": "Открыть оповещения",
  "settings.alerts.rules": "Когда оповещать",
  "settings.alerts.rules.intro":
    "Каждое правило срабатывает один раз, когда порог превышен, напоминает, пока ситуация длится, и сообщает, когда она разрешилась.",
  "settings.alerts.channels": "Кого оповещать и когда",
  "settings.alerts.smtp": "Почтовый сервер (SMTP)",
  "settings.alerts.smtp.intro": "Сервер, через который отправляются оповещения и ежедневная сводка. Без хоста письма не отправляются.",
  "settings.alerts.smtpPassword.unseen":
    "Здесь никогда не показывается. Задаётся командой {command} (хранится в хранилище ключей ОС или в зашифрованном виде в папке данных) или переменной окружения {name}.",
  "settings.alerts.smtpPassword.env": "Задан переменной окружения {name}; здесь никогда не показывается.",
  "settings.alerts.smtpPassword.file":
    "Записан в файле конфигурации; здесь никогда не показывается. Лучше убрать его оттуда: команда {command} хранит его в хранилище ключей ОС или в зашифрованном виде в папке данных.",

  "setting.alerts.enabled": "Оповещения включены",
  "setting.alerts.email_to": "Отправлять оповещения на адреса",
  "setting.alerts.language": "Язык оповещений и сводки",
  "setting.alerts.screen_url": "Адрес smsdesk для ссылок в оповещениях",
  "setting.alerts.link_down_minutes": "Подключение разорвано дольше (минут)",
  "setting.alerts.queue_stuck_minutes": "Очередь стоит дольше (минут)",
  "setting.alerts.failure_rate_percent": "Доля сбоев (%)",
  "setting.alerts.failure_window_minutes": "Доля сбоев считается за (минут)",
  "setting.alerts.receipts_silent_minutes": "Нет отчётов о доставке дольше (минут)",
  "setting.alerts.open_exceptions_over": "Открытых исключений больше",
  "setting.alerts.disk_free_mib": "Свободного места на диске меньше (МиБ)",
  "setting.alerts.backup_max_age_hours": "Последняя резервная копия старше (часов)",
  "setting.alerts.webhook_failing_minutes": "Вебхук не работает дольше (минут)",
  "setting.alerts.opt_out_spike": "Отписок за час больше",
  "setting.alerts.repeat_minutes": "Напоминать каждые (минут)",
  "setting.alerts.email_quiet_hours": "Тихие часы для почты",
  "setting.alerts.webhook_quiet_hours": "Тихие часы для вебхуков",
  "setting.alerts.daily_summary": "Отправлять ежедневную сводку по почте",
  "setting.alerts.summary_hour": "Сводка отправляется в (час, 0–23)",
  "setting.alerts.check_seconds": "Проверять правила каждые (секунд)",
  "setting.smtp.host": "Сервер (хост)",
  "setting.smtp.port": "Порт",
  "setting.smtp.security": "Защита соединения",
  "setting.smtp.from": "Адрес отправителя",
  "setting.smtp.username": "Имя пользователя",
  "setting.smtp.password": "Пароль",
  "setting.smtp.timeout_seconds": "Время на передачу письма (секунд)",

  "settingHelp.alerts.enabled": "Если снято: правила не проверяются и ежедневная сводка не отправляется.",
  "settingHelp.alerts.email_to": "Адреса через запятую, например office@example.org, it@example.org. Пусто: без писем.",
  "settingHelp.alerts.language":
    "«По стране офиса»: французский для Франции, Бельгии, Швейцарии, Люксембурга, Монако и Канады; русский для России, Беларуси, Казахстана и Киргизии; иначе английский.",
  "settingHelp.alerts.screen_url":
    "Адрес, по которому открывают smsdesk, например https://sms.example.org: на него ведёт ссылка в каждом оповещении. Пусто: адрес, на котором слушает smsdesk; с другого компьютера он может не открыться.",
  "settingHelp.alerts.link_down_minutes": "Срабатывает, когда подключение не привязано так долго.",
  "settingHelp.alerts.queue_stuck_minutes": "Срабатывает, когда самое старое сообщение к отправке ждёт так долго.",
  "settingHelp.alerts.failure_rate_percent":
    "Срабатывает, когда такая доля отправок за период отклонена или осталась без ответа (если отправок в периоде не меньше 20).",
  "settingHelp.alerts.failure_window_minutes": "Последние минуты, за которые считается доля сбоев.",
  "settingHelp.alerts.receipts_silent_minutes":
    "Срабатывает, когда так долго не приходит ни одного отчёта, хотя до этого были приняты отправки, запросившие отчёт.",
  "settingHelp.alerts.open_exceptions_over": "Срабатывает, когда решения человека ждёт больше исключений, чем указано.",
  "settingHelp.alerts.disk_free_mib": "Срабатывает, когда на диске с базой данных свободного места меньше указанного.",
  "settingHelp.alerts.backup_max_age_hours":
    "Срабатывает, когда последняя автоматическая резервная копия старше указанного (если ежедневные копии включены).",
  "settingHelp.alerts.webhook_failing_minutes": "Срабатывает, когда вебхук API-ключа не работает так долго.",
  "settingHelp.alerts.opt_out_spike": "Срабатывает, когда за час ответом отписывается больше номеров, чем указано.",
  "settingHelp.alerts.repeat_minutes":
    "Пока оповещение действует, оно повторяется не чаще этого; подтверждение прекращает напоминания.",
  "settingHelp.alerts.email_quiet_hours":
    "По местному времени офиса, например 22:00-07:00; пусто — без тихих часов. В эти часы оповещения по почте не отправляются, кроме касающихся одноразовых кодов; задержанное уходит, когда они заканчиваются.",
  "settingHelp.alerts.webhook_quiet_hours":
    "То же для вебхуков: например 22:00-07:00, пусто — без тихих часов. Оповещения об одноразовых кодах всё равно отправляются.",
  "settingHelp.alerts.daily_summary": "Каждое утро — сводка за предыдущий день (если заданы адреса и почтовый сервер).",
  "settingHelp.alerts.summary_hour": "По местному времени офиса.",
  "settingHelp.smtp.host": "Пусто: письма не отправляются.",
  "settingHelp.smtp.port": "587 для STARTTLS, 465 для TLS, 25 для ретранслятора на этом компьютере.",
  "settingHelp.smtp.from": "Адрес, с которого приходят оповещения, например smsdesk@example.org.",
  "settingHelp.smtp.username": "Пусто: без входа на сервер.",

  "settings.choice.alerts.language.auto": "По стране офиса",
  "settings.choice.alerts.language.en": "English",
  "settings.choice.alerts.language.fr": "Français",
  "settings.choice.alerts.language.ru": "Русский",
  "settings.choice.smtp.security.starttls": "STARTTLS (порт 587)",
  "settings.choice.smtp.security.tls": "TLS (порт 465)",
  "settings.choice.smtp.security.none": "Нет — ретранслятор на этом компьютере или доверенная сеть",
};
