import { useI18n } from "../i18n/context";

/**
 * Under a paged list: how many rows are shown (`shown`, already in words; nothing while the list
 * is empty) and the button that loads the next page. Test ids are `<testId>-count` and
 * `<testId>-more`.
 */
export function ListFooter({
  shown,
  more,
  loadingMore,
  onMore,
  testId,
}: {
  shown: string | null;
  more: boolean;
  loadingMore: boolean;
  onMore: () => void;
  testId: string;
}) {
  const { t } = useI18n();
  return (
    <div className="list-footer">
      {shown !== null && (
        <p className="muted table-note" data-testid={`${testId}-count`}>
          {shown}
        </p>
      )}
      {more && (
        <button
          type="button"
          className="button button-secondary"
          onClick={onMore}
          disabled={loadingMore}
          data-testid={`${testId}-more`}
        >
          {loadingMore ? t("messages.loadingMore") : t("messages.loadMore")}
        </button>
      )}
    </div>
  );
}
