from functools import wraps
from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import login_guard
from accounts.models import User

admin.site.register(User, UserAdmin)


def guarded(login_view: Any) -> Any:
    """The admin's log-in form gets the API's limits: the rate per address and the
    per-account backoff (accounts.login_guard)."""

    @wraps(login_view)
    def login(request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        if request.method == "POST":
            throttle = login_guard.LoginRateThrottle()
            if not throttle.allow_request(request, None):
                return _too_many(round(throttle.wait() or 1), _("Too many log-in attempts from your address."))
            refusal = login_guard.check(request.POST.get("username"), login_guard.client_address(request))
            if refusal is not None:
                return _too_many(refusal.retry_after, refusal.detail.capitalize() + ".")
            if _has_two_factor(request.POST.get("username")):
                # The admin's form has no code field: such an account signs in on the site
                # (password, then code) and then opens the admin with that session.
                return HttpResponse(_("This account has two-factor sign-in: log in on the site first, then open "
                                      "the admin."), status=403, content_type="text/plain; charset=utf-8")
        return login_view(request, extra_context)

    return login


def _has_two_factor(username: Any) -> bool:
    from accounts import two_factor

    user = User.objects.filter(username__iexact=str(username or "")).first()
    return user is not None and two_factor.enabled(user)


def _too_many(seconds: int, message: str) -> HttpResponse:
    again = ngettext("Try again in %(seconds)s second.", "Try again in %(seconds)s seconds.", seconds) % {
        "seconds": seconds}
    response = HttpResponse(f"{message} {again}", status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(max(1, seconds))
    return response


admin.site.login = guarded(admin.site.login)
