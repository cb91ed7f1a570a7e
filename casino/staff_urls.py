from django.urls import path

from casino import views

app_name = "casino"

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", views.login_view, name="login"),
    path("logout/", views.logout_view, name="logout"),
    path("dealer/", views.dealer_home, name="dealer_home"),
    path("operator/terminals/", views.terminals, name="terminals"),
    path(
        "operator/terminals/<int:terminal_id>/credentials/",
        views.terminal_credential_issue_view,
        name="terminal_credential_issue",
    ),
    path(
        "operator/credentials/<int:credential_id>/revoke/",
        views.terminal_credential_revoke_view,
        name="terminal_credential_revoke",
    ),
]
