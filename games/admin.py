from django.contrib import admin

from games.models import Game, Move


class MoveInline(admin.TabularInline):
    model = Move
    extra = 0
    can_delete = False
    readonly_fields = ("seq", "action", "flipped", "score", "moves", "created_at")
    exclude = ("submitted",)

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "owner", "code", "status", "score", "moves", "seq", "created_at")
    list_filter = ("status", "scoring", "draw", "kind")
    search_fields = ("id", "code", "owner__username")
    readonly_fields = ("state",)
    inlines = [MoveInline]
