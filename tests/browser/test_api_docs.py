"""The interactive API docs as a new API user meets them (issue 14's first "done when"): open ``/api/docs`` without
signing in, press *Authorize*, paste a personal access token, open ``GET /api/v1/users/me``, *Try it out*, *Execute*,
and read their own record in the answer. The page loads only this server's files (the fixture fails the test on any
failed static file)."""

from __future__ import annotations

from accounts.services import personal_token_issue
from tests.browser.helpers import expect
from tests.factories import UserFactory


def test_try_users_me_with_a_token_from_swagger_ui(page, transactional_db):
    user = UserFactory(username="new.api.user", first_name="Nia")
    _record, token = personal_token_issue(user=user, name="docs")
    page.goto("/api/docs#/users/users_me")  # deep linking opens the operation
    operation = page.locator("#operations-users-users_me")
    expect(operation.locator(".opblock-summary-path")).to_have_attribute("data-path", "/api/v1/users/me",
                                                                         timeout=30_000)  # the whole schema loaded

    page.click("button.authorize")
    page.fill(".modal-ux input[type=text]", token)
    page.click(".modal-ux button.authorize")
    page.click(".modal-ux button.btn-done")

    # Swagger UI renders only the operations in view: the filter box narrows the page to the "users" tag.
    page.fill("input.operation-filter-input", "users")
    operation = page.locator("#operations-users-users_me")
    if "is-open" not in (operation.get_attribute("class") or ""):
        operation.locator(".opblock-summary-control").click()
    operation.locator("button.try-out__btn").click()
    operation.locator("button.execute").click()

    answer = operation.locator(".live-responses-table .response .response-col_status").first
    expect(answer).to_have_text("200")
    body = operation.locator(".live-responses-table .response-col_description pre").first
    expect(body).to_contain_text('"username": "new.api.user"')
    expect(operation.locator(".request-url pre")).to_contain_text("/api/v1/users/me")
