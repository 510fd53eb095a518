"""Races move to their own app (races/): Game.race points at races.Race, and games.Race and games.RaceEntry leave the state. State only: the tables games_race and games_raceentry stay, now races.Race's."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0008_races_leave_1'),
        ('leaderboards', '0002_rating_change_race_in_races'),
        ('races', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name='game',
                    name='race',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='games', to='races.race'),
                ),
                migrations.RemoveField(
                    model_name='raceentry',
                    name='race',
                ),
                migrations.RemoveField(
                    model_name='raceentry',
                    name='game',
                ),
                migrations.RemoveField(
                    model_name='raceentry',
                    name='user',
                ),
                migrations.DeleteModel(
                    name='Race',
                ),
                migrations.DeleteModel(
                    name='RaceEntry',
                ),
            ],
        ),
    ]
