from django.urls import path

from accounts import api, language_views

urlpatterns = [
    path("accounts/csrf", api.CsrfView.as_view(), name="csrf"),
    path("accounts/signup", api.SignUpView.as_view(), name="signup"),
    path("accounts/login", api.LogInView.as_view(), name="login"),
    path("accounts/login/two-factor", api.LogInCodeView.as_view(), name="login-two-factor"),
    path("accounts/two-factor", api.TwoFactorView.as_view(), name="two-factor"),
    path("accounts/two-factor/setup", api.TwoFactorSetupView.as_view(), name="two-factor-setup"),
    path("accounts/two-factor/confirm", api.TwoFactorConfirmView.as_view(), name="two-factor-confirm"),
    path("accounts/two-factor/disable", api.TwoFactorDisableView.as_view(), name="two-factor-disable"),
    path("accounts/logout", api.LogOutView.as_view(), name="logout"),
    path("accounts/me", api.MeView.as_view(), name="me"),
    path("accounts/language", language_views.LanguageView.as_view(), name="language"),
    path("accounts/whoami", api.WhoAmIView.as_view(), name="whoami"),
    path("accounts/tokens", api.TokensView.as_view(), name="tokens"),
    path("accounts/tokens/<str:token_id>", api.TokenView.as_view(), name="token"),
    path("accounts/socket-ticket", api.SocketTicketView.as_view(), name="socket-ticket"),
    path("accounts/password", api.PasswordChangeView.as_view(), name="password"),
    path("accounts/password-reset", api.PasswordResetView.as_view(), name="password-reset"),
    path("accounts/password-reset/confirm", api.PasswordResetConfirmView.as_view(), name="password-reset-confirm"),
    path("accounts/email/verify", api.EmailVerifyView.as_view(), name="email-verify"),
    path("accounts/email/verification", api.EmailVerificationView.as_view(), name="email-verification"),
    path("accounts/delete", api.DeleteAccountView.as_view(), name="delete"),
    path("accounts/export", api.ExportView.as_view(), name="export"),
    path("accounts/sessions", api.SessionsView.as_view(), name="sessions"),
    path("accounts/sessions/sign-out-others", api.SignOutOthersView.as_view(), name="sign-out-others"),
    path("accounts/sessions/<str:session_id>", api.SessionView.as_view(), name="session"),
    path("players/<str:username>", api.ProfileView.as_view(), name="player"),
]
