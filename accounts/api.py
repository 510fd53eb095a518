"""Sign up, log in, log out, profile, personal access tokens and socket tickets.
Browsers use the session; API clients a personal access token their owner made from a
signed-in session (``Authorization: Token kl_…``)."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model, login, logout, password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.http import StreamingHttpResponse
from django.middleware.csrf import get_token
from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle as DrfScopedRateThrottle
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from accounts import deletion, email_addresses, export, languages, login_guard, passwords, sessions, tokens, two_factor
from accounts.authentication import SignedInSession
from accounts.models import AccessToken
from api.input import StrictCharField, StrictEmailField, StrictRegexField, StrictSerializer
from games.api import GUEST_SESSION_KEY, retry_after, validated
from games.models import Game
from api.schema import ErrorSerializer
from games.services import ServiceError, claim_guest_games
from leaderboards.services import visible_results

User = get_user_model()
TWO_FACTOR_PENDING = "two_factor_pending"  # in the session: whose password was right, and when
TWO_FACTOR_WINDOW = 300  # seconds to enter the code after the password
USERNAME_HELP = "3–30 letters, digits, '_' or '-'; unique regardless of case"


def answers(view: Any, request: Request) -> bool:
    """Whether the view takes the request's method (DRF checks throttles before it)."""
    return hasattr(view, request.method.lower())


class ScopedRateThrottle(DrfScopedRateThrottle):
    """DRF's, counting only requests the view answers: a method it does not take is a
    405, not a use of the account's budget (DRF checks throttles before the method)."""

    def allow_request(self, request: Request, view: Any) -> bool:
        return not answers(view, request) or super().allow_request(request, view)


class AddressRateThrottle(SimpleRateThrottle):
    """Account writes per client address (as config.client_address resolved it, behind
    TRUSTED_PROXIES), besides each action's own limit per account."""

    scope = "account_address"

    def allow_request(self, request: Request, view: Any) -> bool:
        return not answers(view, request) or super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def password_field(**options: Any) -> serializers.CharField:
    """A password taken exactly as typed (a strict field does not trim)."""
    return StrictCharField(max_length=128, write_only=True, **options)


def email_field() -> serializers.EmailField:
    # 254: the longest address (RFC 5321) and the database column's size.
    return StrictEmailField(required=False, allow_blank=True, max_length=254)


class SignUpSerializer(StrictSerializer):
    username = StrictRegexField(r"^[A-Za-z0-9_-]{3,30}$", help_text=USERNAME_HELP)
    password = password_field(min_length=8)
    email = email_field()


class LogInSerializer(StrictSerializer):
    username = StrictCharField(max_length=150, help_text="the name in any case, as it was chosen: no white space "
                                                         "is trimmed")
    password = password_field()


def proof_password() -> serializers.CharField:
    return password_field(required=False, help_text="the password: a sensitive change needs it")


def proof_code() -> serializers.CharField:
    return StrictCharField(required=False, max_length=32,
                           help_text="with two-factor sign-in on: a code from the app or a recovery code")


class ProfileUpdateSerializer(StrictSerializer):
    email = email_field()
    password = proof_password()
    code = proof_code()


class ProfileSerializer(serializers.Serializer):
    username = serializers.CharField()
    email = serializers.CharField()
    email_verified = serializers.BooleanField(help_text="only a verified address can reset a forgotten password")
    date_joined = serializers.DateTimeField()
    games = serializers.IntegerField()
    finished = serializers.IntegerField()
    wins = serializers.IntegerField()
    abandoned = serializers.IntegerField()


class PublicProfileSerializer(serializers.Serializer):
    username = serializers.CharField()
    date_joined = serializers.DateTimeField()
    games = serializers.IntegerField(help_text="every game, live ones included")
    finished = serializers.IntegerField(help_text="games played to an end (won, given up, out of time): the win "
                                        "rate's denominator")
    wins = serializers.IntegerField()
    abandoned = serializers.IntegerField(help_text="games left without a move for GAME_ABANDON_HOURS: not in the "
                                         "win rate")


class CsrfSerializer(serializers.Serializer):
    csrf_token = serializers.CharField()


class SessionSerializer(serializers.Serializer):
    username = serializers.CharField()
    claimed_games = serializers.IntegerField(help_text="guest games of this browser now in the account")


def public_profile(user: Any) -> dict[str, Any]:
    games = Game.objects.filter(owner=user)
    return {
        "username": user.username,
        "date_joined": user.date_joined,
        "games": games.count(),
        "finished": visible_results(games.exclude(status__in=[Game.Status.LIVE, Game.Status.ABANDONED])).count(),
        "wins": visible_results(games.filter(status=Game.Status.WON)).count(),
        "abandoned": games.filter(status=Game.Status.ABANDONED).count(),
    }


def start_session(request: Request, user: Any) -> dict[str, Any]:
    """Log the user in and hand over the browser's guest games. No token: the browser
    has its session cookie, and API clients make tokens on purpose (TokensView)."""
    guest_key = request.session.get(GUEST_SESSION_KEY, "")
    login(request._request, user, backend="django.contrib.auth.backends.ModelBackend")
    claimed = claim_guest_games(guest_key, user.pk)
    return {"username": user.username, "claimed_games": claimed}


def signed_in(request: Request, user: Any, status: int = 200) -> Response:
    """The answer to a sign-in (or sign-up): the session started, and the account's
    language made this device's (accounts.languages)."""
    response = Response(start_session(request, user), status=status)
    languages.signed_in(request, response, user, new_account=status == 201)
    return response


class CsrfView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Get a CSRF token", description="Sets the csrftoken cookie; browsers send it back "
                   "in the X-CSRFToken header with every write.", responses={200: CsrfSerializer})
    def get(self, request: Request) -> Response:
        return Response({"csrf_token": get_token(request._request)})


class SignUpView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "signup"

    @extend_schema(summary="Create an account", request=SignUpSerializer, parameters=[retry_after(429)],
                   responses={201: SessionSerializer, 400: ErrorSerializer, 409: ErrorSerializer})
    def post(self, request: Request) -> Response:
        data = validated(SignUpSerializer, request.data)
        if User.objects.filter(username__iexact=data["username"]).exists() or deletion.name_is_reserved(
                data["username"]):
            raise ServiceError("username_taken", _("the name %(name)s is taken") % {"name": data["username"]}, 409)
        candidate = User(username=data["username"], email=data.get("email", ""))
        try:
            password_validation.validate_password(data["password"], candidate)
        except DjangoValidationError as exc:
            raise ServiceError("weak_password", " ".join(exc.messages)) from None
        try:
            with transaction.atomic():
                user = User.objects.create_user(data["username"], data.get("email", ""), data["password"])
        except IntegrityError:
            # Another sign-up took the name (in some case) between the check and the insert.
            raise ServiceError("username_taken", _("the name %(name)s is taken") % {"name": data["username"]},
                               409) from None
        if user.email:
            email_addresses.send_verification(request._request, user)
        return signed_in(request, user, status=201)


class LogInView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [login_guard.LoginRateThrottle]

    @extend_schema(summary="Log in", description="Limited per address (THROTTLE_LOGIN); repeated failures "
                   "for one account from one address must wait longer and longer (`login_backoff`).",
                   request=LogInSerializer, parameters=[retry_after(429)],
                   responses={200: SessionSerializer, 400: OpenApiResponse(
                       ErrorSerializer, description="`bad_credentials`: the name and password match no active "
                                                    "account (a well-formed request: no HTTP authentication "
                                                    "scheme applies, so not 401); `invalid`: a malformed body"),
                              429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        data = validated(LogInSerializer, request.data)
        refusal = login_guard.check(data["username"], login_guard.client_address(request))
        if refusal is not None:
            raise ServiceError(refusal.code, refusal.detail, 429, retry_after=refusal.retry_after)
        user = authenticate(request._request, username=data["username"], password=data["password"])
        if user is None:
            raise ServiceError("bad_credentials", _("that username and password do not match"), 400)
        if two_factor.enabled(user):
            # Not signed in yet: the code comes next (LogInCodeView), from this session.
            request.session[TWO_FACTOR_PENDING] = {"user": user.pk, "at": time.time()}
            return Response({"two_factor_required": True,
                             "detail": _("enter a code from your authenticator app, or a recovery code")})
        return signed_in(request, user)


class LogOutView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Log out", request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        logout(request._request)
        return Response(status=204)


class WhoAmISerializer(serializers.Serializer):
    account = ProfileSerializer(allow_null=True, help_text="null for a visitor who is not signed in")


class WhoAmIView(APIView):
    """Who this browser is, without a 401 for a guest: every page asks on load, and a
    guest's pages should not log an error for it."""

    permission_classes = [AllowAny]

    @extend_schema(summary="The signed-in account, or null", responses={200: WhoAmISerializer})
    def get(self, request: Request) -> Response:
        user = request.user
        if not user.is_authenticated:
            return Response({"account": None})
        return Response({"account": {**public_profile(user), "email": user.email,
                                     "email_verified": user.email_verified}})


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    def get_permissions(self) -> list[Any]:
        # Any token may read the profile; changing it needs the session.
        return [IsAuthenticated()] if self.request.method == "GET" else [SignedInSession()]

    @extend_schema(summary="My profile", responses={200: ProfileSerializer, 403: ErrorSerializer})
    def get(self, request: Request) -> Response:
        user = request.user
        return Response({**public_profile(user), "email": user.email, "email_verified": user.email_verified})

    @extend_schema(summary="Update my profile", description="Needs a signed-in session (`session_required`).",
                   request=ProfileUpdateSerializer,
                   responses={200: ProfileSerializer, 400: ErrorSerializer, 403: ErrorSerializer})
    def patch(self, request: Request) -> Response:
        data = validated(ProfileUpdateSerializer, request.data)
        if "email" in data:
            two_factor.require_fresh(request.user, data.get("password"), data.get("code"))
            # A new address is unverified until its link is followed; the old one is told.
            email_addresses.change(request._request, data["email"])
        return self.get(request)


class ProfileView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="A player's public profile", responses={200: PublicProfileSerializer, 404: ErrorSerializer})
    def get(self, request: Request, username: str) -> Response:
        user = User.objects.filter(username__iexact=username, is_active=True).first()
        if user is None:
            raise ServiceError("not_found", _("there is no such player"), 404)
        return Response(public_profile(user))


# -- personal access tokens -------------------------------------------------------


class TokenCreateSerializer(StrictSerializer):
    name = StrictCharField(max_length=60, min_length=1, help_text="what the token is for, e.g. 'my bot'")
    scope = serializers.ChoiceField(AccessToken.Scope.values,
                                    help_text="`read`: your own private data; `play`: also moves, races and games")
    expires_in_days = serializers.IntegerField(min_value=1, max_value=tokens.MAX_EXPIRY_DAYS, default=30)
    password = proof_password()
    code = proof_code()


class TokenSerializer(serializers.Serializer):
    id = serializers.CharField(source="token_key", help_text="the secret's first characters, to tell tokens apart")
    name = serializers.CharField()
    scope = serializers.CharField()
    legacy = serializers.BooleanField(help_text="made before tokens were hashed: revoke it and make a new one")
    created = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(source="expiry", allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True, help_text="to within a few minutes")


class NewTokenSerializer(TokenSerializer):
    token = serializers.CharField(help_text="the secret, shown this once: send 'Authorization: Token <token>'")


class TicketSerializer(serializers.Serializer):
    ticket = serializers.CharField(help_text="for the socket's URL: ?ticket=<ticket>")
    expires_in = serializers.IntegerField(help_text="seconds; good for one handshake")


class TokensView(APIView):
    permission_classes = [SignedInSession]
    throttle_scope = "tokens"

    def get_throttles(self) -> list[Any]:
        return [ScopedRateThrottle(), AddressRateThrottle()] if self.request.method == "POST" else []

    @extend_schema(summary="My access tokens", description="Needs a signed-in session.",
                   responses={200: TokenSerializer(many=True), 401: ErrorSerializer, 403: ErrorSerializer})
    def get(self, request: Request) -> Response:
        return Response(TokenSerializer(tokens.owned(request.user), many=True).data)

    @extend_schema(summary="Make an access token", description="Needs a signed-in session: a token cannot make "
                   "tokens. The secret is in this answer only.", request=TokenCreateSerializer,
                   parameters=[retry_after(429)],
                   responses={201: NewTokenSerializer, 400: ErrorSerializer, 403: ErrorSerializer,
                              409: ErrorSerializer, 429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        data = validated(TokenCreateSerializer, request.data)
        two_factor.require_fresh(request.user, data.get("password"), data.get("code"))
        token, secret = tokens.issue(request.user, name=data["name"], scope=data["scope"],
                                     expires_in_days=data["expires_in_days"])
        return Response({**TokenSerializer(token).data, "token": secret}, status=201)


class TokenView(APIView):
    permission_classes = [SignedInSession]

    @extend_schema(summary="Revoke an access token", description="Its open sockets are closed.", request=None,
                   responses={204: None, 403: ErrorSerializer, 404: ErrorSerializer})
    def delete(self, request: Request, token_id: str) -> Response:
        tokens.revoke(request.user, token_id)
        return Response(status=204)


class SocketTicketView(APIView):
    """For socket clients that cannot set an Authorization header. A read token may ask
    (its socket may watch): the POST changes nothing."""

    read_scope_may_post = True

    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "socket_ticket"

    @extend_schema(summary="A ticket for one socket handshake", request=None, parameters=[retry_after(429)],
                   responses={201: TicketSerializer, 401: ErrorSerializer, 429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        token = request.auth if isinstance(request.auth, AccessToken) else None
        session_key = request.session.session_key
        ticket = tokens.ticket_for(request.user.pk, token, session_key and sessions.session_digest(session_key))
        return Response({"ticket": ticket, "expires_in": settings.SOCKET_TICKET_SECONDS}, status=201)


# -- signed-in sessions -----------------------------------------------------------


class SignedInSessionSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    device = serializers.CharField(help_text="from the browser's user agent, e.g. 'Firefox on Windows'")
    ip = serializers.IPAddressField(allow_null=True, help_text="the address it signed in from")
    signed_in_at = serializers.DateTimeField()
    last_seen_at = serializers.DateTimeField(help_text="to within a few minutes")
    current = serializers.BooleanField(help_text="the session making this request")


class SignedOutSerializer(serializers.Serializer):
    signed_out = serializers.IntegerField(help_text="how many sessions were signed out")


class SessionsView(APIView):
    permission_classes = [SignedInSession]

    @extend_schema(summary="Where I am signed in", description="Needs a signed-in session.",
                   responses={200: SignedInSessionSerializer(many=True), 401: ErrorSerializer, 403: ErrorSerializer})
    def get(self, request: Request) -> Response:
        rows = sessions.listed(request.user, request.session.session_key)
        return Response(SignedInSessionSerializer(rows, many=True).data)


class SessionView(APIView):
    permission_classes = [SignedInSession]

    @extend_schema(summary="Sign out one of my other sessions", description="Its open sockets are closed.",
                   request=None, responses={204: None, 403: ErrorSerializer, 404: ErrorSerializer,
                                            409: ErrorSerializer})
    def delete(self, request: Request, session_id: str) -> Response:
        sessions.sign_out(request.user, session_id, request.session.session_key)
        return Response(status=204)


class SignOutOthersView(APIView):
    permission_classes = [SignedInSession]

    @extend_schema(summary="Sign out everywhere else", description="Every session but this one; their open "
                   "sockets are closed. Access tokens are not touched.", request=None,
                   responses={200: SignedOutSerializer, 403: ErrorSerializer})
    def post(self, request: Request) -> Response:
        return Response({"signed_out": sessions.sign_out_others(request.user, request.session.session_key)})


# -- password and email address ----------------------------------------------------


def new_password_field() -> serializers.CharField:
    return password_field(min_length=8)


class PasswordChangeSerializer(StrictSerializer):
    current_password = password_field()
    new_password = new_password_field()
    keep_tokens = serializers.BooleanField(default=False, help_text="leave the access tokens working")


class PasswordChangedSerializer(serializers.Serializer):
    signed_out = serializers.IntegerField()
    revoked_tokens = serializers.IntegerField()


class PasswordResetSerializer(StrictSerializer):
    email = StrictEmailField(max_length=254)


class PasswordResetConfirmSerializer(StrictSerializer):
    uid = StrictCharField(max_length=64)
    token = StrictCharField(max_length=128)
    new_password = new_password_field()
    keep_tokens = serializers.BooleanField(default=False, help_text="leave the access tokens working")


class EmailVerifySerializer(StrictSerializer):
    token = StrictCharField(max_length=512)


class DoneSerializer(serializers.Serializer):
    detail = serializers.CharField()


class PasswordChangeView(APIView):
    permission_classes = [SignedInSession]
    throttle_classes = [ScopedRateThrottle, AddressRateThrottle]
    throttle_scope = "password_change"

    @extend_schema(summary="Change my password", description="Needs the current password and a signed-in "
                   "session. Signs out every other session and revokes every access token unless kept; a "
                   "notice is mailed.", request=PasswordChangeSerializer, parameters=[retry_after(429)],
                   responses={200: PasswordChangedSerializer, 400: ErrorSerializer, 403: ErrorSerializer,
                              429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        data = validated(PasswordChangeSerializer, request.data)
        return Response(passwords.change(request._request, data["current_password"], data["new_password"],
                                         keep_tokens=data["keep_tokens"]))


class PasswordResetView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "password_reset"

    @extend_schema(summary="Mail me a link to reset my password", description="The same answer whether or "
                   "not an account has this verified address.", request=PasswordResetSerializer,
                   parameters=[retry_after(429)], responses={202: DoneSerializer, 400: ErrorSerializer,
                                                             429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        data = validated(PasswordResetSerializer, request.data)
        passwords.request_reset(request._request, data["email"])
        return Response({"detail": _("if an account has this verified address, a link to reset its password "
                                     "is on its way")}, status=202)


class PasswordResetConfirmView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "password_reset_confirm"

    @extend_schema(summary="Set a new password with a mailed link", description="The link works once. Every "
                   "session is signed out; every access token revoked unless kept.",
                   request=PasswordResetConfirmSerializer, parameters=[retry_after(429)],
                   responses={200: DoneSerializer, 400: ErrorSerializer, 429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        data = validated(PasswordResetConfirmSerializer, request.data)
        user = passwords.confirm_reset(data["uid"], data["token"], data["new_password"], keep_tokens=data["keep_tokens"])
        return Response({"detail": _("the password of %(name)s is changed: log in with it") % {"name": user.username}})


class EmailVerifyView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Verify my email address with its mailed link", request=EmailVerifySerializer,
                   responses={200: DoneSerializer, 400: ErrorSerializer})
    def post(self, request: Request) -> Response:
        user = email_addresses.verify(validated(EmailVerifySerializer, request.data)["token"])
        return Response({"detail": _("%(address)s is verified") % {"address": user.email}})


class EmailVerificationView(APIView):
    permission_classes = [SignedInSession]
    throttle_classes = [ScopedRateThrottle, AddressRateThrottle]
    throttle_scope = "email_verification"

    @extend_schema(summary="Mail my address its verification link again", request=None,
                   parameters=[retry_after(429)],
                   responses={202: DoneSerializer, 403: ErrorSerializer, 409: ErrorSerializer, 429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        email_addresses.send_verification(request._request, request.user)
        return Response({"detail": _("a link is on its way to %(address)s") % {"address": request.user.email}},
                        status=202)


# -- two-factor sign-in -----------------------------------------------------------


class CodeSerializer(StrictSerializer):
    code = StrictCharField(max_length=32, help_text="from the authenticator app, or a recovery code")


class FreshProofSerializer(StrictSerializer):
    password = password_field()
    code = StrictCharField(max_length=32, help_text="from the authenticator app, or a recovery code")


class TwoFactorStatusSerializer(serializers.Serializer):
    enabled = serializers.BooleanField()
    recovery_codes_left = serializers.IntegerField()


class TwoFactorSetupSerializer(serializers.Serializer):
    otpauth_uri = serializers.CharField(help_text="for the authenticator app")
    secret = serializers.CharField(help_text="the same, to type in by hand (base 32)")
    qr = serializers.CharField(help_text="the URI as a QR code: an SVG data: URI")


class RecoveryCodesSerializer(serializers.Serializer):
    recovery_codes = serializers.ListField(child=serializers.CharField(), help_text="each works once; shown once")


class LogInCodeView(APIView):
    """The second step of a sign-in with two-factor on."""

    permission_classes = [AllowAny]
    throttle_classes = [login_guard.LoginRateThrottle]

    @extend_schema(summary="Log in: the two-factor code", request=CodeSerializer, parameters=[retry_after(429)],
                   responses={200: SessionSerializer, 400: ErrorSerializer, 409: ErrorSerializer,
                              429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        code = validated(CodeSerializer, request.data)["code"]
        pending = request.session.get(TWO_FACTOR_PENDING)
        if not pending or time.time() - pending["at"] > TWO_FACTOR_WINDOW:
            raise ServiceError("no_sign_in_pending", _("log in with your name and password first"), 409)
        user = User.objects.filter(pk=pending["user"], is_active=True).first()
        if user is None:
            raise ServiceError("no_sign_in_pending", _("log in with your name and password first"), 409)
        two_factor.check(user, code)
        del request.session[TWO_FACTOR_PENDING]
        return signed_in(request, user)


class TwoFactorView(APIView):
    permission_classes = [SignedInSession]

    @extend_schema(summary="Is two-factor sign-in on", responses={200: TwoFactorStatusSerializer})
    def get(self, request: Request) -> Response:
        return Response(two_factor.status(request.user))


class PasswordSerializer(StrictSerializer):
    password = password_field()


class TwoFactorSetupView(APIView):
    permission_classes = [SignedInSession]
    throttle_classes = [ScopedRateThrottle, AddressRateThrottle]
    throttle_scope = "password_change"

    @extend_schema(summary="Start turning two-factor sign-in on", description="Needs the password. A new "
                   "secret for the app; nothing changes until a code from it is confirmed.",
                   request=PasswordSerializer, parameters=[retry_after(429)],
                   responses={200: TwoFactorSetupSerializer, 400: ErrorSerializer, 409: ErrorSerializer,
                              429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        password = validated(PasswordSerializer, request.data)["password"]
        if not request.user.check_password(password):
            raise ServiceError("wrong_password", _("the password is not right"), 400)
        return Response(two_factor.begin(request.user))


class TwoFactorConfirmView(APIView):
    permission_classes = [SignedInSession]
    throttle_classes = [ScopedRateThrottle, AddressRateThrottle]
    throttle_scope = "password_change"

    @extend_schema(summary="Turn two-factor sign-in on with a code from the app", request=CodeSerializer,
                   parameters=[retry_after(429)],
                   responses={200: RecoveryCodesSerializer, 400: ErrorSerializer, 409: ErrorSerializer,
                              429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        codes = two_factor.confirm(request.user, validated(CodeSerializer, request.data)["code"])
        return Response({"recovery_codes": codes})


class TwoFactorDisableView(APIView):
    permission_classes = [SignedInSession]
    throttle_classes = [ScopedRateThrottle, AddressRateThrottle]
    throttle_scope = "password_change"

    @extend_schema(summary="Turn two-factor sign-in off", description="Needs the password and a code.",
                   request=FreshProofSerializer, parameters=[retry_after(429)],
                   responses={204: None, 400: ErrorSerializer, 403: ErrorSerializer, 429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        data = validated(FreshProofSerializer, request.data)
        if not two_factor.enabled(request.user):
            raise ServiceError("not_enabled", _("two-factor sign-in is not on"), 409)
        two_factor.disable(request.user, data["password"], data["code"])
        return Response(status=204)


# -- leaving: delete and export -----------------------------------------------------


class DeleteAccountSerializer(StrictSerializer):
    password = password_field()
    code = proof_code()


class DeleteAccountView(APIView):
    permission_classes = [SignedInSession]
    throttle_classes = [ScopedRateThrottle, AddressRateThrottle]
    throttle_scope = "password_change"

    @extend_schema(summary="Delete my account", description="Needs the password (and a code with two-factor "
                   "sign-in on). Other players' games, races and boards keep their results under a neutral "
                   "name; the name is free for others after USERNAME_RESERVED_DAYS.",
                   request=DeleteAccountSerializer, parameters=[retry_after(429)],
                   responses={204: None, 400: ErrorSerializer, 403: ErrorSerializer, 429: ErrorSerializer})
    def post(self, request: Request) -> Response:
        data = validated(DeleteAccountSerializer, request.data)
        deletion.delete(request.user, data["password"], data.get("code"))
        logout(request._request)
        return Response(status=204)


class ExportView(APIView):
    permission_classes = [SignedInSession]
    throttle_classes = [ScopedRateThrottle, AddressRateThrottle]
    throttle_scope = "export"

    @extend_schema(summary="A copy of my data (JSON download)", description="Streamed: profile, sessions, "
                   "tokens without secrets, Vegas and rating history, races, every game with its moves.",
                   parameters=[retry_after(429)],
                   responses={(200, "application/json"): OpenApiTypes.OBJECT, 403: ErrorSerializer,
                              429: ErrorSerializer})
    def get(self, request: Request) -> StreamingHttpResponse:
        response = StreamingHttpResponse(export.stream(request.user.pk, request.session.session_key),
                                         content_type="application/json")
        stamp = timezone.now().strftime("%Y-%m-%d")
        response["Content-Disposition"] = f'attachment; filename="klondike-{request.user.username}-{stamp}.json"'
        response["Cache-Control"] = "no-store"
        return response
