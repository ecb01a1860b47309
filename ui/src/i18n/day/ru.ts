import type { dayEn } from "./en";

export const dayRu: { readonly [K in keyof typeof dayEn]: string } = {
  "country.label": "Страна офиса",
  "country.hint": "Номера без кода страны (например, {example}) читаются как номера этой страны везде, где вводится номер.",
  "country.hint.none": "Номера без кода страны читаются как номера этой страны везде, где вводится номер.",
  "country.none": "Не выбрана: каждый номер нужно писать с кодом страны",
  "connect.step.country": "Страна офиса",
  "connect.step.country.intro": "Номера вводят так, как их произносят (8 912 345-67-89): выберите страну этих номеров. При переключении она сохраняется вместе с данными провайдера.",
  "fieldError.unknown_country.country": "Такой страны нет в данных о нумерации: выберите страну из списка.",

  "number.hint.example": "Так, как вы его пишете ({national}), или с кодом страны ({international}).",
  "number.filter.hint.example":
    "Так, как вы его пишете ({national}, {international}), его последние цифры (не меньше 4: {ending}) или его начало и * ({beginning}).",
  "number.inbox.hint.example": "Цифры номера (например, {national}) или слова из ответа.",
  "number.problem.title": "По этому номеру нельзя искать",

  "send.unfilled.title": "В тексте остались {names}",
  "send.unfilled.body":
    "Это поля для подстановки из шаблона «{template}»: если отправить текст как есть, получатель увидит их в таком виде. Выберите шаблон и заполните поля или отправьте текст как есть.",
  "send.unfilled.useTemplate": "Выбрать шаблон",
  "send.unfilled.sendAnyway": "Отправить как есть",

  "pace.due": "к отправке сейчас: {count}",
  "pace.scheduled.one": "запланировано: {count}, ближайшее — {time}",
  "pace.scheduled.few": "запланировано: {count}, ближайшее — {time}",
  "pace.scheduled.many": "запланировано: {count}, ближайшее — {time}",
  "pace.scheduled.other": "запланировано: {count}, ближайшее — {time}",
  "pace.idle.due": "Сейчас отправлять нечего · не более {rate}/с ({limit})",

  "date.part.day": "дд",
  "date.part.month": "мм",
  "date.part.year": "гггг",
  "date.part.hour": "чч",
  "date.part.minute": "мм",
  "date.invalid": "Это не читается как дата: напишите её в виде {pattern}.",
  "fieldError.invalid_time.typed": "Это не читается как дата: напишите её в виде {pattern}.",
  "date.zone": "В вашем часовом поясе ({zone}).",

  "form.required": "Заполните это поле.",

  "list.shown.one": "Показано: {count}.",
  "list.shown.few": "Показано: {count}.",
  "list.shown.many": "Показано: {count}.",
  "list.shown.other": "Показано: {count}.",

  "import.done.one": "Поставлено в очередь: {count} сообщение.",
  "import.done.few": "Поставлено в очередь: {count} сообщения.",
  "import.done.many": "Поставлено в очередь: {count} сообщений.",
  "import.done.other": "Поставлено в очередь сообщений: {count}.",
  "import.done.show": "Показать их в списке",
  "filters.imported": "Только сообщения импорта, сделанного с {from} по {to}.",
  "filters.imported.clear": "Показать все сообщения",

  "error.technical": "Технические подробности",
};
