"""Race and RaceEntry as they were in the games app, on the same tables (games_race, games_raceentry). State only: every row stays where it is."""

import django.db.models.deletion
import uuid
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('games', '0008_races_leave_1'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name='Race',
                    fields=[
                        ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                        ('draw', models.PositiveSmallIntegerField(default=1)),
                        ('scoring', models.CharField(choices=[('normal', 'Normal'), ('vegas', 'Vegas')], default='normal', max_length=8)),
                        ('max_players', models.PositiveSmallIntegerField(default=8)),
                        ('public', models.BooleanField(default=True)),
                        ('time_limit', models.PositiveIntegerField(default=600, help_text='seconds')),
                        ('spectator_delay', models.PositiveSmallIntegerField(default=0, help_text='moves spectators lag behind')),
                        ('rated', models.BooleanField(default=True, help_text="changes the racers' ratings")),
                        ('open_boards', models.BooleanField(default=False, help_text='unrated only: every card named live to everyone')),
                        ('status', models.CharField(choices=[('open', 'Open'), ('started', 'Started'), ('finished', 'Finished'), ('cancelled', 'Cancelled')], default='open', max_length=10)),
                        ('code', models.CharField(blank=True, default='', max_length=20)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('starts_at', models.DateTimeField(blank=True, null=True)),
                        ('ends_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('host', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='hosted_races', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'games_race',
                    },
                ),
                migrations.CreateModel(
                    name='RaceEntry',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('ready', models.BooleanField(default=False)),
                        ('joined_at', models.DateTimeField(auto_now_add=True)),
                        ('rank', models.PositiveSmallIntegerField(blank=True, null=True)),
                        ('won', models.BooleanField(default=False)),
                        ('seconds', models.FloatField(blank=True, null=True)),
                        ('foundation_count', models.PositiveSmallIntegerField(default=0)),
                        ('score', models.IntegerField(default=0)),
                        ('moves', models.PositiveIntegerField(default=0)),
                        ('game', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='race_entry', to='games.game')),
                        ('race', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='entries', to='races.race')),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='race_entries', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'games_raceentry',
                        'ordering': ['joined_at', 'id'],
                    },
                ),
                migrations.AddIndex(
                    model_name='race',
                    index=models.Index(fields=['status', 'public', '-created_at'], name='games_race_status_3eb3c5_idx'),
                ),
                migrations.AddConstraint(
                    model_name='race',
                    constraint=models.CheckConstraint(condition=models.Q(('open_boards', True), ('rated', True), _negated=True), name='games_race_open_unrated'),
                ),
                migrations.AddConstraint(
                    model_name='raceentry',
                    constraint=models.UniqueConstraint(fields=('race', 'user'), name='games_raceentry_once'),
                ),
            ],
        ),
    ]
